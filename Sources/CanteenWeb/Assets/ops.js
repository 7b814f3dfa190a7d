// The operator's console (`/ops`): every café at a glance, menus, café settings, devices and
// their provisioning QR codes, webhooks, cards and coupons, reports and the audit log. Signed in
// with an ops token (`#token=`, kept on this device) or, when the server has an identity provider, with
// the company's sign-in (members of the ops group; a session cookie). Everything goes through the public API:
// the page can do nothing the API would refuse, and shows the API's own message at the field
// it names (`aria-invalid="true"`).
'use strict';

(() => {
  const { t, el, storage, request, ApiError, notify, connection } = Canteen;
  const locale = Canteen.locale;
  const state = { cafes: [], section: null, overviewTimer: null, overviewGeneration: 0, menu: null, cafeDoc: null,
    auditNext: null };
  const sections = ['overview', 'menus', 'cafe', 'devices', 'webhooks', 'cards', 'reports', 'audit'];
  const pages = { kds: 'kitchen', kiosk: 'kiosk', board: 'kiosk' };
  const number = new Intl.NumberFormat(locale);
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];
  const path = (text) => encodeURIComponent(text);

  // MARK: - Signing in

  /** The server signs people in with the company's identity provider (the page says so: `data-sign-in`). */
  const companySignIn = document.documentElement.dataset.signIn === 'provider';
  /** `GET /v1/me` of the ops-group member signed in by the session cookie (null with a token). */
  let person = null;

  async function start() {
    if (companySignIn) {
      $('#setup .company-signin').hidden = false;
      $$('.signout-button').forEach((button) => button.addEventListener('click', signOut));
    }
    const signedIn = companySignIn && !storage.get('token') ? await signedInPerson() : null;
    const { cafes } = signedIn || await Canteen.session({ roles: ['ops'], cafe: false });
    showCafes(cafes);
    $('#console').hidden = false;
    // Once per page: signing in again (the ⚙ button, a refused token) reloads the page.
    $$('.sections button').forEach((button) => button.addEventListener('click', () => show(button.dataset.section)));
    const wanted = Canteen.query.get('section');
    show(sections.includes(wanted) ? wanted : 'overview');
  }

  /**
   * The person the session cookie signs in, when no ops token is kept here: `{cafes}` for a member
   * of the ops group. Anyone else is told why not (the API's refusal of the console's first call)
   * and may sign out; null then, and when nobody is signed in (the sign-in screen follows).
   */
  async function signedInPerson() {
    let me = null;
    for (;;) {
      try {
        me = (await request('GET', '/v1/me', { timeoutMs: 8000 })).body;
        if (me.role !== 'ops') await request('GET', '/v1/overview', { timeoutMs: 8000 });
        const { cafes } = (await request('GET', '/v1/cafes', { timeoutMs: 8000 })).body;
        person = me;
        $('.topbar .signed-in-as').textContent = t('web.ops.signed_in_as', { name: me.name || me.userId });
        $('.topbar .signed-in-as').hidden = false;
        $('.topbar .signout-button').hidden = false;
        return { cafes };
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) return null;
        if (error instanceof ApiError) {
          const refusal = $('#setup .signin-refusal');
          const name = me ? me.name || me.userId : '';
          refusal.replaceChildren(el('strong', { text: t('web.ops.signed_in_as', { name }) }), el('br'), error.message);
          refusal.hidden = false;
          $('#setup .signin-link').hidden = true;
          $('#setup .signout-button').hidden = false;
          return null;
        }
        await connection.whenOnline();
      }
    }
  }

  /** Ends the session (and forgets a token kept here), then back to the sign-in screen. */
  async function signOut() {
    try { await request('POST', '/auth/logout', { anonymous: true }); } catch { /* signed out here anyway */ }
    storage.set('token', null);
    location.replace('/ops');
  }

  /** A call failed: a refused token sends the reader back to sign in; anything else is a notice. */
  function failed(error) {
    if (error instanceof ApiError && error.status === 401) {
      stopOverview();
      if (person) location.replace('/ops'); else Canteen.tokenRefused(error);
      return;
    }
    notify(error instanceof ApiError ? error.message : t('web.common.unreachable'), { kind: 'error' });
  }

  async function loadCafes() {
    showCafes((await request('GET', '/v1/cafes')).body.cafes);
  }

  /** Fills every café menu of the page with `cafes`, keeping what each had chosen. */
  function showCafes(cafes) {
    state.cafes = cafes;
    for (const select of $$('.cafe-select')) {
      const current = select.value;
      const options = state.cafes.map((cafe) => el('option', { value: cafe.id, text: `${cafe.name} (${cafe.id})` }));
      if (select.dataset.all === 'true') options.unshift(el('option', { value: '', text: t('web.ops.all_cafes') }));
      select.replaceChildren(...options);
      if (current) select.value = current;
    }
  }

  const cafeNamed = (id) => state.cafes.find((cafe) => cafe.id === id);

  function show(section) {
    state.section = section;
    $$('[data-panel]').forEach((panel) => { panel.hidden = panel.dataset.panel !== section; });
    $$('.sections button').forEach((button) => {
      if (button.dataset.section === section) button.setAttribute('aria-current', 'page');
      else button.removeAttribute('aria-current');
    });
    const query = new URLSearchParams(location.search);
    query.set('section', section);
    history.replaceState(history.state, '', `${location.pathname}?${query}`);
    if (section === 'overview') startOverview(); else stopOverview();
    const open = { menus: openMenus, cafe: openCafe, devices: openDevices, webhooks: openWebhooks, cards: openCards,
      reports: openReports, audit: openAudit }[section];
    if (open) open().catch(failed);
  }

  // MARK: - Field errors

  /** Clears the field errors of `form`. */
  function clearErrors(form) {
    $$('[aria-invalid]', form).forEach((field) => field.removeAttribute('aria-invalid'));
    $$('.field-error', form).forEach((message) => message.remove());
    const summary = $('.form-errors', form);
    if (summary) { summary.hidden = true; summary.replaceChildren(); }
  }

  /** Shows `message` at the field of `form` whose `data-path` is `field` (or its nearest parent path). */
  function fieldError(form, field, message) {
    const parent = (text) => {
      const last = /(\.[^.[\]]+|\[[^\]]*\])$/.exec(text);
      return last ? text.slice(0, -last[0].length) : '';
    };
    let target = null;
    for (let candidate = field || ''; candidate && !target; candidate = parent(candidate)) {
      target = form.querySelector(`[data-path="${CSS.escape(candidate)}"]`);
    }
    if (!target) {
      const summary = $('.form-errors', form);
      if (summary) {
        summary.hidden = false;
        summary.append(el('p', { text: field ? `${field}: ${message}` : message }));
      } else {
        notify(message, { kind: 'error' });
      }
      return;
    }
    target.setAttribute('aria-invalid', 'true');
    const id = `error-${Math.random().toString(36).slice(2)}`;
    const note = el('span', { class: 'field-error', id, text: message, dataset: { for: target.dataset.path } });
    target.setAttribute('aria-describedby', id);
    (target.closest('label') || target).after(note);
    if (!form.querySelector('[aria-invalid="true"]:focus')) target.focus?.();
  }

  /** Shows every problem of an API refusal at its field; other errors as a notice. */
  function showRefusal(form, error) {
    if (!(error instanceof ApiError) || error.status === 401) { failed(error); return; }
    const problems = error.problems && error.problems.length ? error.problems
      : [{ field: error.field, message: error.message }];
    problems.forEach((problem) => fieldError(form, problem.field, problem.message));
  }

  /** Minor units of a major-unit text field, or a field error (nothing is sent). */
  function minorUnits(form, input, exponent) {
    const result = CanteenMoney.toMinor(input.value, exponent);
    if (result.error) {
      fieldError(form, input.dataset.path, t(`web.ops.price_${result.error}`, { digits: exponent }));
      return null;
    }
    return result.value;
  }

  /** A whole number typed in a field, or the text as typed (for the API to name what is wrong with it). */
  function wholeNumber(text) {
    const trimmed = text.trim();
    return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
  }

  // MARK: - Overview

  /** Polls the overview every 2 s until stopped; the loop of an earlier start ends at its next step. */
  function startOverview() {
    stopOverview();
    const generation = state.overviewGeneration;
    const current = () => generation === state.overviewGeneration;
    const tick = async () => {
      if (!current() || state.section !== 'overview') return;
      if (connection.online) {
        try {
          const overview = (await request('GET', '/v1/overview', { timeoutMs: 8000 })).body;
          if (current()) renderOverview(overview);
        } catch (error) {
          if (current() && error instanceof ApiError) failed(error);
        }
      }
      if (current()) state.overviewTimer = setTimeout(tick, 2000);
    };
    tick();
  }

  function stopOverview() {
    state.overviewGeneration += 1;
    clearTimeout(state.overviewTimer);
    state.overviewTimer = null;
  }

  const statuses = ['new', 'preparing', 'ready'];

  function renderOverview(overview) {
    const panel = $('#section-overview');
    $('.updated', panel).textContent = t('web.ops.updated_at', { time: dateTime.format(new Date(overview.at)) });
    $('.overview-cafes', panel).replaceChildren(...overview.cafes.map((cafe) => el('article', {
      class: 'cafe-card', dataset: { cafeId: cafe.id, openOrders: String(cafe.openOrders) },
    },
    el('h2', {}, cafe.name, ' ', el('span', { class: `pill ${cafe.openNow ? 'pill-open' : 'pill-closed'}`,
      text: t(cafe.openNow ? 'web.ops.open_now' : 'web.ops.closed_now') })),
    el('p', { class: 'figures' },
      el('span', { class: 'figure', dataset: { figure: 'orders' } }, el('strong', { text: number.format(cafe.openOrders) }),
        ' ', t('web.ops.open_orders')),
      el('span', { class: 'figure', dataset: { figure: 'tickets' } }, el('strong', { text: number.format(cafe.openTickets) }),
        ' ', t('web.ops.open_tickets')),
      el('span', { class: 'figure', dataset: { figure: 'oldest' } }, el('strong', {
        text: cafe.oldestOpenTicketSeconds === null ? '—' : Canteen.duration(cafe.oldestOpenTicketSeconds * 1000),
      }), ' ', t('web.ops.oldest_ticket'))),
    cafe.stations.length ? el('table', { class: 'station-table' },
      el('thead', {}, el('tr', {}, el('th', { text: t('web.ops.station') }),
        statuses.map((status) => el('th', { text: t(`state.${status}`) })))),
      el('tbody', {}, cafe.stations.map((row) => el('tr', { dataset: { station: row.station } },
        el('th', { scope: 'row', text: row.station }),
        statuses.map((status) => el('td', { dataset: { status }, text: number.format(row.statuses[status] || 0) }))))))
      : el('p', { class: 'hint', text: t('web.ops.no_open_tickets') }),
    el('h3', { text: t('web.ops.next_windows') }),
    cafe.nextWindows.length ? el('ul', { class: 'window-meters' }, cafe.nextWindows.map((window) => {
      const used = window.capacity - window.remaining;
      return el('li', {},
        el('span', { class: 'window-label', text: window.label }),
        el('meter', { min: 0, max: window.capacity, value: used, high: Math.ceil(window.capacity * 0.8),
          optimum: 0, 'aria-label': window.label }),
        el('span', { text: t('web.ops.window_fill', { used: number.format(used), capacity: number.format(window.capacity) }) }));
    })) : el('p', { class: 'hint', text: t('web.ops.no_windows') }))));
    $('.failing-list', panel).replaceChildren(...overview.failingWebhooks.map((hook) => el('li', {},
      el('code', { text: hook.url }), ' ',
      t('web.ops.failing_counts', { failed: number.format(hook.failed), retrying: number.format(hook.retrying) }),
      hook.lastError ? ` — ${hook.lastError}` : '')));
    $('.failing-none', panel).hidden = overview.failingWebhooks.length > 0;
  }

  // MARK: - Menus

  async function openMenus() {
    const select = $('.cafe-select[data-for="menus"]');
    if (!select.dataset.bound) {
      select.dataset.bound = 'true';
      select.addEventListener('change', () => loadMenu(select.value).catch(failed));
      $('.menu-form').addEventListener('submit', (event) => { event.preventDefault(); saveMenu(); });
    }
    await loadMenu(select.value);
  }

  async function loadMenu(cafeId) {
    const answer = (await request('GET', `/v1/cafes/${path(cafeId)}/menu/document`)).body;
    state.menu = answer;
    renderMenu();
  }

  /** The allergens the page has names for (`allergen.milk` → milk), read from its strings once. */
  const knownAllergens = Object.keys(JSON.parse(document.getElementById('canteen-strings').textContent))
    .filter((key) => key.startsWith('allergen.')).map((key) => key.slice(9)).sort();

  function defaultText(names) {
    const languages = state.menu.languages;
    return names[languages.find((language) => names[language])] || '';
  }

  function renderMenu() {
    const menu = state.menu;
    const form = $('.menu-form');
    clearErrors(form);
    $('.menu-version').textContent = t('web.ops.menu_version', { version: number.format(menu.version) });
    const doc = menu.document;
    const allergens = knownAllergens;
    const byCategory = doc.categories.map((category) => ({
      category, items: doc.items.map((item, index) => ({ item, index })).filter(({ item }) => item.category === category.id),
    }));
    $('.menu-items', form).replaceChildren(...byCategory.map(({ category, items }) => el('section', { class: 'menu-category' },
      el('h2', { text: defaultText(category.names) }),
      items.map(({ item, index }) => itemEditor(item, index, allergens)))));
  }

  function itemEditor(item, index, allergens) {
    const menu = state.menu;
    const base = `items[${index}]`;
    const exponent = menu.currencyExponent;
    const soldOut = Object.prototype.hasOwnProperty.call(menu.soldOut, item.id) ? menu.soldOut[item.id] : undefined;
    const knownHere = [...new Set([...allergens, ...item.allergens])];
    return el('fieldset', { class: 'item-editor', dataset: { itemId: item.id, index: String(index) } },
      el('legend', {}, defaultText(item.names), ' ', el('code', { text: item.id })),
      el('div', { class: 'field-grid' },
        menu.languages.map((language) => el('label', {}, t('web.ops.item_name', { language }),
          el('input', { name: 'name', lang: language, dir: 'auto', value: item.names[language] || '',
            dataset: { path: `${base}.names.${language}`, language } }))),
        menu.languages.map((language) => el('label', { class: 'wide' }, t('web.ops.item_description', { language }),
          el('textarea', { name: 'description', lang: language, dir: 'auto', rows: 2,
            dataset: { path: `${base}.descriptions.${language}`, language } }, item.descriptions[language] || ''))),
        el('label', {}, t('web.ops.price', { currency: menu.currency }),
          el('input', { name: 'price', inputmode: 'decimal', value: CanteenMoney.toMajor(item.price, exponent),
            dataset: { path: `${base}.price` } })),
        el('label', {}, t('web.ops.station'), el('input', { name: 'station', value: item.station,
          dataset: { path: `${base}.station` } }))),
      el('fieldset', { class: 'checks', dataset: { path: `${base}.allergens` } }, el('legend', { text: t('web.kiosk.allergens') }),
        knownHere.map((code) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'allergen', value: code,
          checked: item.allergens.includes(code) }), t(`allergen.${code}`) || code))),
      menu.document.dayParts.length ? el('fieldset', { class: 'checks', dataset: { path: `${base}.dayParts` } },
        el('legend', { text: t('web.ops.day_parts') }),
        menu.document.dayParts.map((part) => el('label', { class: 'check' }, el('input', { type: 'checkbox', name: 'dayPart',
          value: part.id, checked: (item.dayParts || []).includes(part.id) }), `${defaultText(part.names)} ${part.start}–${part.end}`)))
        : null,
      modifierGroupsEditor(item, base),
      soldOutControls(item, soldOut));
  }

  /** The item's modifier groups, each with its options, and buttons to add and remove them. */
  function modifierGroupsEditor(item, base) {
    const groups = el('div', { class: 'modifier-groups' }, (item.modifierGroups || []).map(groupEditor));
    const add = () => {
      const group = groupEditor(null);
      groups.append(group);
      numberRows($$('.modifier-group', groups), `${base}.modifierGroups`);
      $('input', group).focus();
    };
    numberRows($$('.modifier-group', groups), `${base}.modifierGroups`);
    $$('.modifier-group', groups).forEach((group) => {
      numberRows($$('.modifier-option', group), `${group.dataset.path}.options`);
    });
    return el('div', { class: 'modifier-groups-editor', dataset: { path: `${base}.modifierGroups` } }, groups,
      el('button', { type: 'button', class: 'secondary add-group', text: t('web.ops.add_modifier_group'),
        onclick: add }));
  }

  /** Fields named in each of the menu's languages (`names.en`, …). */
  function namesFields(label, name, names) {
    return state.menu.languages.map((language) => el('label', {}, t(label, { language }),
      el('input', { name, lang: language, dir: 'auto', value: names[language] || '',
        dataset: { language, field: `names.${language}` } })));
  }

  /** One modifier group (`group` null: a new one, its id still to be chosen). */
  function groupEditor(group) {
    const existing = Boolean(group);
    const value = group || { id: '', names: {}, min: 0, max: 1, options: [] };
    const options = el('div', { class: 'modifier-options', dataset: { field: 'options' } },
      (existing ? value.options : [null]).map((option) => optionEditor(option)));
    const addOption = (event) => {
      const fieldset = event.currentTarget.closest('.modifier-group');
      const option = optionEditor(null);
      options.append(option);
      numberRows($$('.modifier-option', fieldset), `${fieldset.dataset.path}.options`);
      $('input', option).focus();
    };
    return el('fieldset', { class: 'modifier-group edit-row', dataset: { field: '', groupId: value.id } },
      el('legend', { text: existing ? t('web.ops.modifier_group', { name: defaultText(value.names), min: value.min,
        max: value.max }) : t('web.ops.new_modifier_group') }),
      el('div', { class: 'field-grid' },
        el('label', {}, t('web.ops.group_id'), el('input', { name: 'groupId', value: value.id, readonly: existing,
          spellcheck: 'false', autocomplete: 'off', dataset: { field: 'id' } })),
        namesFields('web.ops.group_name', 'groupName', value.names),
        el('label', {}, t('web.ops.min_choices'), el('input', { name: 'min', inputmode: 'numeric', value: value.min,
          dataset: { field: 'min' } })),
        el('label', {}, t('web.ops.max_choices'), el('input', { name: 'max', inputmode: 'numeric', value: value.max,
          dataset: { field: 'max' } }))),
      options,
      el('div', { class: 'row-buttons' },
        el('button', { type: 'button', class: 'secondary add-option', text: t('web.ops.add_option'),
          onclick: addOption }),
        el('button', { type: 'button', class: 'danger remove-group', text: t('web.ops.remove_modifier_group'),
          onclick: (event) => event.currentTarget.closest('.modifier-group').remove() })));
  }

  /** One option of a modifier group: id, names and what it adds to the price (in major units). */
  function optionEditor(option) {
    const existing = Boolean(option);
    const value = option || { id: '', names: {}, priceDelta: 0 };
    return el('div', { class: 'modifier-option edit-row', dataset: { field: '', optionId: value.id } },
      el('label', {}, t('web.ops.option_id'), el('input', { name: 'optionId', value: value.id, readonly: existing,
        spellcheck: 'false', autocomplete: 'off', dataset: { field: 'id' } })),
      namesFields('web.ops.option_name', 'optionName', value.names),
      el('label', {}, t('web.ops.price_delta', { currency: state.menu.currency }),
        el('input', { name: 'priceDelta', inputmode: 'decimal', value: CanteenMoney.toMajor(value.priceDelta,
          state.menu.currencyExponent), dataset: { field: 'priceDelta' } })),
      removeButton(t('web.ops.remove_option'), '.modifier-option'));
  }

  function soldOutControls(item, soldOut) {
    const cafe = cafeNamed(state.menu.cafeId);
    const zone = cafe ? cafe.timeZone : undefined;
    const status = soldOut === undefined ? t('label.available')
      : soldOut === null ? t('label.sold_out')
        : t('web.soldout.until', { time: Canteen.timeOfDay(zone).format(new Date(soldOut)) });
    const time = el('input', { type: 'time', name: 'until', 'aria-label': t('web.soldout.until_time') });
    return el('div', { class: 'sold-out', dataset: { soldOut: String(soldOut !== undefined) } },
      el('span', { class: 'sold-out-status', text: status }),
      el('button', { type: 'button', class: 'secondary', text: t('web.soldout.today'),
        onclick: () => markSoldOut(item.id, Canteen.nextZonedTime(zone, 0, 0)) }),
      el('label', {}, t('web.soldout.until_time'), ' ', time),
      el('button', { type: 'button', class: 'secondary', text: t('web.soldout.set'),
        onclick: () => {
          const match = /^(\d{2}):(\d{2})$/.exec(time.value);
          if (match) markSoldOut(item.id, Canteen.nextZonedTime(zone, Number(match[1]), Number(match[2])));
        } }),
      el('button', { type: 'button', class: 'secondary', text: t('web.soldout.back'), disabled: soldOut === undefined,
        onclick: () => markSoldOut(item.id, false) }));
  }

  async function markSoldOut(itemId, until) {
    const body = until === false ? { soldOut: false } : { soldOut: true, soldOutUntil: until.toISOString() };
    try {
      await request('PATCH', `/v1/cafes/${path(state.menu.cafeId)}/menu/items/${path(itemId)}`, { body });
      await loadMenu(state.menu.cafeId);
    } catch (error) {
      failed(error);
    }
  }

  /** The edited document: the loaded one with the fields this page shows replaced (others kept as they were). */
  function editedMenu(form) {
    const doc = structuredClone(state.menu.document);
    const exponent = state.menu.currencyExponent;
    let valid = true;
    for (const editor of $$('.item-editor', form)) {
      const item = doc.items[Number(editor.dataset.index)];
      $$('input[name=name]', editor).forEach((input) => { item.names[input.dataset.language] = input.value; });
      $$('textarea[name=description]', editor).forEach((input) => { item.descriptions[input.dataset.language] = input.value; });
      const price = minorUnits(form, $('input[name=price]', editor), exponent);
      if (price === null) valid = false; else item.price = price;
      item.station = $('input[name=station]', editor).value.trim();
      item.allergens = $$('input[name=allergen]:checked', editor).map((box) => box.value);
      if ($('input[name=dayPart]', editor)) item.dayParts = $$('input[name=dayPart]:checked', editor).map((box) => box.value);
      const groups = $$('.modifier-group', editor);
      numberRows(groups, `items[${editor.dataset.index}].modifierGroups`);
      item.modifierGroups = groups.map((group) => {
        const options = $$('.modifier-option', group);
        numberRows(options, `${group.dataset.path}.options`);
        return { id: $('[name=groupId]', group).value.trim(), names: typedNames(group, 'groupName'),
          min: wholeNumber($('[name=min]', group).value), max: wholeNumber($('[name=max]', group).value),
          options: options.map((option) => {
            const delta = minorUnits(form, $('[name=priceDelta]', option), exponent);
            if (delta === null) valid = false;
            return { id: $('[name=optionId]', option).value.trim(), names: typedNames(option, 'optionName'),
              priceDelta: delta };
          }) };
      });
    }
    return valid ? doc : null;
  }

  /** The names typed in `row`'s fields called `name`, by language (not those of rows nested in it). */
  function typedNames(row, name) {
    return Object.fromEntries($$(`input[name=${name}]`, row).filter((input) => input.closest('.edit-row') === row)
      .map((input) => [input.dataset.language, input.value]));
  }

  async function saveMenu() {
    const form = $('.menu-form');
    clearErrors(form);
    const doc = editedMenu(form);
    if (!doc) return;
    const button = $('.save-menu', form);
    button.disabled = true;
    try {
      const answer = await request('PUT', `/v1/cafes/${path(state.menu.cafeId)}/menu`, { body: doc });
      notify(t('web.ops.menu_saved', { version: number.format(answer.body.version) }));
      await loadMenu(state.menu.cafeId);
    } catch (error) {
      showRefusal(form, error);
    } finally {
      button.disabled = false;
    }
  }

  // MARK: - Café settings

  const weekdays = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

  async function openCafe() {
    const select = $('.cafe-select[data-for="cafe"]');
    if (!select.dataset.bound) {
      select.dataset.bound = 'true';
      select.addEventListener('change', () => loadCafe(select.value).catch(failed));
      $('.cafe-form').addEventListener('submit', (event) => { event.preventDefault(); saveCafe(); });
      $('.beacon-form').addEventListener('submit', (event) => { event.preventDefault(); registerBeacon(); });
      $('.add-station').addEventListener('click',
        () => addRow($('.station-rows'), stationRow({ id: '', prepSeconds: '' }), 'stations'));
      $('.add-network').addEventListener('click', () => addRow($('.network-rows'), networkRow(''), 'networks'));
    }
    await loadCafe(select.value);
  }

  async function loadCafe(cafeId) {
    const [cafe, menu] = await Promise.all([
      request('GET', `/v1/cafes/${path(cafeId)}`).then((answer) => answer.body),
      request('GET', `/v1/cafes/${path(cafeId)}/menu/document`).then((answer) => answer.body),
    ]);
    state.cafeDoc = cafe;
    const form = $('.cafe-form');
    clearErrors(form);
    $('.hours-days', form).replaceChildren(...weekdays.map((day) => el('div', { class: 'day', dataset: { day } },
      el('span', { class: 'day-name', text: t(`web.ops.day_${day}`) }),
      el('div', { class: 'spans' }, (cafe.hours[day] || []).map((span, index) => hoursSpan(day, index, span))),
      el('button', { type: 'button', class: 'secondary', text: t('web.ops.add_hours'), onclick: (event) => {
        const spans = event.target.previousSibling;
        spans.append(hoursSpan(day, spans.children.length, { open: '09:00', close: '17:00' }));
      } }))));
    const pickup = cafe.pickup;
    $('.pickup-fields', form).replaceChildren(
      el('label', {}, t('web.ops.slot_minutes'), el('input', { name: 'slotMinutes', inputmode: 'numeric',
        value: pickup.slotMinutes, dataset: { path: 'pickup.slotMinutes' } })),
      el('label', {}, t('web.ops.capacity'), el('input', { name: 'capacity', inputmode: 'numeric', value: pickup.capacity,
        dataset: { path: 'pickup.capacity' } })),
      el('label', {}, t('web.ops.capacity_unit'), el('select', { name: 'capacityUnit', dataset: { path: 'pickup.capacityUnit' } },
        ['orders', 'items'].map((unit) => el('option', { value: unit, selected: unit === pickup.capacityUnit,
          text: t(`web.ops.unit_${unit}`) })))),
      el('label', {}, t('web.ops.lead_minutes'), el('input', { name: 'leadMinutes', inputmode: 'numeric',
        value: pickup.leadMinutes, dataset: { path: 'pickup.leadMinutes' } })));
    const stations = [...new Set(menu.document.items.map((item) => item.station))].sort();
    $('.stations-list', form).textContent = t('web.ops.stations_from_menu', { stations: stations.join(', ') });
    $('.station-rows', form).replaceChildren(...(cafe.stations || []).map(stationRow));
    numberRows($$('.station-row', form), 'stations');
    $('.network-rows', form).replaceChildren(...(cafe.networks || []).map(networkRow));
    numberRows($$('.network-row', form), 'networks');
    renderBeacons(cafe);
  }

  /** Appends a new row to `list` (rows named `base[0]`, …) and puts the cursor in its first field. */
  function addRow(list, row, base) {
    list.append(row);
    numberRows([...list.children], base);
    $('input', row).focus();
  }

  /** Gives the rows of a list, and the fields marked `data-field` in each (not in a nested row), the paths the API
   * names them by: `stations[0]`, `stations[0].prepSeconds`. Renumbered before sending, since rows come and go. */
  function numberRows(rows, base) {
    rows.forEach((row, index) => {
      const at = `${base}[${index}]`;
      [row, ...$$('[data-field]', row)]
        .filter((field) => field.dataset.field !== undefined && field.closest('.edit-row') === row)
        .forEach((field) => { field.dataset.path = field.dataset.field ? `${at}.${field.dataset.field}` : at; });
    });
  }

  const removeButton = (label, selector) => el('button', { type: 'button', class: 'secondary remove',
    'aria-label': label, title: label, text: '×',
    onclick: (event) => event.currentTarget.closest(selector).remove() });

  /** One kitchen station of the café: its id and the prep time of its items that have none of their own. */
  function stationRow(station) {
    return el('div', { class: 'station-row edit-row', dataset: { field: '' } },
      el('label', {}, t('web.ops.station_id'), el('input', { name: 'stationId', value: station.id, spellcheck: 'false',
        autocomplete: 'off', dataset: { field: 'id' } })),
      el('label', {}, t('web.ops.prep_seconds'), el('input', { name: 'prepSeconds', inputmode: 'numeric',
        value: station.prepSeconds, dataset: { field: 'prepSeconds' } })),
      removeButton(t('web.ops.remove_station'), '.station-row'));
  }

  /** One network of the café's building, in CIDR notation. */
  function networkRow(network) {
    return el('div', { class: 'network-row edit-row' },
      el('input', { name: 'network', value: network, dir: 'ltr', spellcheck: 'false', autocomplete: 'off',
        'aria-label': t('web.ops.network'), placeholder: '10.20.0.0/16', dataset: { field: '' } }),
      removeButton(t('web.ops.remove_network'), '.network-row'));
  }

  function hoursSpan(day, index, span) {
    const base = `hours.${day}[${index}]`;
    return el('span', { class: 'span edit-row', dataset: { path: base, field: '' } },
      el('input', { type: 'time', name: 'open', value: span.open, 'aria-label': t('web.ops.opens'),
        dataset: { path: `${base}.open`, field: 'open' } }),
      '–',
      el('input', { type: 'time', name: 'close', value: span.close === '24:00' ? '23:59' : span.close,
        'aria-label': t('web.ops.closes'), dataset: { path: `${base}.close`, field: 'close', original: span.close } }),
      el('button', { type: 'button', class: 'secondary remove', 'aria-label': t('web.ops.remove_hours'), text: '×',
        onclick: (event) => event.target.closest('.span').remove() }));
  }

  async function saveCafe() {
    const form = $('.cafe-form');
    clearErrors(form);
    const doc = structuredClone(state.cafeDoc);
    doc.hours = {};
    for (const day of $$('.day', form)) {
      numberRows($$('.span', day), `hours.${day.dataset.day}`);
      const spans = $$('.span', day).map((span) => {
        const close = $('input[name=close]', span);
        // 24:00 (midnight at the end of the day) cannot be typed in a time field: kept as it was.
        const closing = close.value === '23:59' && close.dataset.original === '24:00' ? '24:00' : close.value;
        return { open: $('input[name=open]', span).value, close: closing };
      });
      if (spans.length) doc.hours[day.dataset.day] = spans;
    }
    const integer = (name) => {
      const text = $(`[name=${name}]`, form).value.trim();
      return /^-?\d+$/.test(text) ? Number(text) : text;
    };
    doc.pickup = { ...doc.pickup, slotMinutes: integer('slotMinutes'), capacity: integer('capacity'),
      capacityUnit: $('[name=capacityUnit]', form).value, leadMinutes: integer('leadMinutes') };
    // Rows left wholly empty go; the others are sent as typed, for the API to judge.
    $$('.station-row, .network-row', form).filter((row) => $$('input', row).every((input) => !input.value.trim()))
      .forEach((row) => row.remove());
    numberRows($$('.station-row', form), 'stations');
    doc.stations = $$('.station-row', form).map((row) => ({ id: $('[name=stationId]', row).value.trim(),
      prepSeconds: wholeNumber($('[name=prepSeconds]', row).value) }));
    numberRows($$('.network-row', form), 'networks');
    doc.networks = $$('.network-row', form).map((row) => $('[name=network]', row).value.trim());
    try {
      await request('PUT', `/v1/cafes/${path(doc.id)}`, { body: doc });
      notify(t('web.ops.cafe_saved'));
      await loadCafes();
      await loadCafe(doc.id);
    } catch (error) {
      showRefusal(form, error);
    }
  }

  function beaconPath(cafe, minor) {
    return `/v1/beacons/${path(cafe.beaconRegion.uuid)}/${cafe.beaconRegion.major}/${minor}`;
  }

  function renderBeacons(cafe) {
    $('.beacon-region').textContent = t('web.ops.beacon_region', { uuid: cafe.beaconRegion.uuid, major: cafe.beaconRegion.major });
    $('.beacon-table tbody').replaceChildren(...cafe.beacons.map((beacon) => {
      const power = el('input', { inputmode: 'numeric', value: beacon.measuredPower, size: 5,
        'aria-label': t('web.ops.beacon_power'), dataset: { path: 'measuredPower' } });
      return el('tr', { dataset: { minor: String(beacon.minor) } },
        el('td', { text: String(beacon.minor) }), el('td', { text: beacon.label }), el('td', {}, power),
        el('td', {},
          el('button', { type: 'button', class: 'secondary', text: t('web.ops.save'), onclick: () => saveBeacon(cafe,
            { ...beacon, measuredPower: /^-?\d+$/.test(power.value.trim()) ? Number(power.value) : power.value }, power.closest('tr')) }),
          el('button', { type: 'button', class: 'danger', text: t('web.ops.remove'), onclick: () => removeBeacon(cafe, beacon) })));
    }));
  }

  async function saveBeacon(cafe, beacon, row) {
    clearErrors(row);
    try {
      await request('PUT', beaconPath(cafe, beacon.minor), {
        body: { cafeId: cafe.id, label: beacon.label, measuredPower: beacon.measuredPower } });
      notify(t('web.ops.beacon_saved'));
      await loadCafe(cafe.id);
    } catch (error) {
      showRefusal(row, error);
    }
  }

  async function registerBeacon() {
    const form = $('.beacon-form');
    clearErrors(form);
    const cafe = state.cafeDoc;
    const data = new FormData(form);
    const minor = String(data.get('minor')).trim();
    if (!/^\d+$/.test(minor)) { fieldError(form, 'minor', t('web.ops.whole_number')); return; }
    const power = String(data.get('measuredPower')).trim();
    await saveBeacon(cafe, { minor, label: String(data.get('label')), measuredPower: /^-?\d+$/.test(power) ? Number(power) : power }, form);
  }

  async function removeBeacon(cafe, beacon) {
    if (!(await confirmAction(t('web.ops.remove_beacon_title', { minor: beacon.minor }), '', t('web.ops.remove')))) return;
    try {
      await request('DELETE', beaconPath(cafe, beacon.minor));
      await loadCafe(cafe.id);
    } catch (error) {
      failed(error);
    }
  }

  // MARK: - Devices and tokens

  async function openDevices() {
    const form = $('.device-form');
    if (!form.dataset.bound) {
      form.dataset.bound = 'true';
      form.addEventListener('submit', (event) => { event.preventDefault(); provision(); });
    }
    await loadTokens();
  }

  async function provision() {
    const form = $('.device-form');
    clearErrors(form);
    const data = new FormData(form);
    const cafe = String(data.get('cafe'));
    const screen = String(data.get('screen'));
    const name = String(data.get('name')).trim() || `${t(`web.ops.screen_${screen}`)} (${cafe})`;
    try {
      const answer = (await request('POST', '/v1/tokens', { body: { role: pages[screen], cafeId: cafe, name } })).body;
      const url = `${location.origin}/${screen}?cafe=${encodeURIComponent(cafe)}#token=${answer.secret}`;
      showSecret({ title: t('web.ops.provisioned', { name }), secret: answer.secret, label: t('web.token.label'), url });
      form.reset();
      await loadTokens();
    } catch (error) {
      showRefusal(form, error);
    }
  }

  async function loadTokens() {
    const tokens = (await request('GET', '/v1/tokens')).body.tokens;
    $('.token-table tbody').replaceChildren(...tokens.map((token) => el('tr', {
      dataset: { tokenId: token.id, active: String(token.active) },
    },
    el('td', { text: token.name || '—' }), el('td', { text: t(`web.role.${token.role}`) || token.role }),
    el('td', { text: token.cafeId || (token.userId ? `user: ${token.userId}` : t('web.ops.all_cafes')) }),
    el('td', {}, el('time', { datetime: token.createdAt, text: dateTime.format(new Date(token.createdAt)) })),
    el('td', {}, token.lastUsedAt ? el('time', { datetime: token.lastUsedAt, text: dateTime.format(new Date(token.lastUsedAt)) })
      : t('web.ops.never')),
    el('td', { text: token.active ? t('web.ops.active') : t('web.ops.revoked') }),
    el('td', {}, token.active ? el('button', { type: 'button', class: 'danger', text: t('web.ops.revoke'),
      onclick: () => revoke(token) }) : null))));
  }

  async function revoke(token) {
    const title = t('web.ops.revoke_title', { name: token.name || token.id });
    if (!(await confirmAction(title, t('web.ops.revoke_text'), t('web.ops.revoke')))) return;
    try {
      await request('DELETE', `/v1/tokens/${path(token.id)}`);
      await loadTokens();
    } catch (error) {
      failed(error);
    }
  }

  /** The dialog that shows a secret once, with its provisioning URL as a QR code when there is one. */
  function showSecret({ title, secret, label, url = null }) {
    const dialog = $('#secret-dialog');
    $('.secret-title', dialog).textContent = title;
    $('.secret-label', dialog).textContent = label;
    $('.secret-value', dialog).textContent = secret;
    const qr = $('.secret-qr', dialog);
    qr.replaceChildren();
    qr.removeAttribute('data-qr-url');
    $('.secret-url-row', dialog).hidden = !url;
    if (url) {
      qr.dataset.qrUrl = url;
      qr.setAttribute('role', 'img');
      qr.setAttribute('aria-label', t('web.ops.qr_label'));
      qr.append(CanteenQR.svg(url, 300));
      $('.secret-url', dialog).textContent = url;
    }
    dialog.addEventListener('close', () => {
      // Shown once: gone from the page when the dialog closes.
      $('.secret-value', dialog).textContent = '';
      $('.secret-url', dialog).textContent = '';
      qr.replaceChildren();
      qr.removeAttribute('data-qr-url');
    }, { once: true });
    dialog.showModal();
  }

  function confirmAction(title, text, confirmLabel) {
    const dialog = $('#confirm-dialog');
    $('.confirm-title', dialog).textContent = title;
    $('.confirm-text', dialog).textContent = text;
    $('.confirm-button', dialog).textContent = confirmLabel;
    dialog.returnValue = '';
    dialog.showModal();
    return new Promise((resolve) => {
      dialog.addEventListener('close', () => resolve(dialog.returnValue === 'confirm'), { once: true });
    });
  }

  // MARK: - Webhooks

  const webhookEvents = ['order.placed', 'order.ready', 'order.picked_up', 'order.cancelled'];

  async function openWebhooks() {
    const form = $('.webhook-form');
    if (!form.dataset.bound) {
      form.dataset.bound = 'true';
      $('.events', form).append(...webhookEvents.map((type) => el('label', { class: 'check' },
        el('input', { type: 'checkbox', name: 'events', value: type, checked: type === 'order.ready' }), type)));
      $('.events', form).dataset.path = 'events';
      form.addEventListener('submit', (event) => { event.preventDefault(); addWebhook(); });
    }
    await loadWebhooks();
  }

  async function addWebhook() {
    const form = $('.webhook-form');
    clearErrors(form);
    const data = new FormData(form);
    const body = { url: String(data.get('url')).trim(), events: data.getAll('events') };
    if (data.get('cafe')) body.cafeId = String(data.get('cafe'));
    try {
      const answer = (await request('POST', '/v1/webhooks', { body })).body;
      showSecret({ title: t('web.ops.webhook_added'), secret: answer.secret, label: t('web.ops.signing_secret') });
      form.reset();
      await loadWebhooks();
    } catch (error) {
      showRefusal(form, error);
    }
  }

  async function loadWebhooks() {
    const hooks = (await request('GET', '/v1/webhooks')).body.webhooks;
    $('.webhook-list').replaceChildren(...hooks.map((hook) => el('article', { class: 'webhook', dataset: { webhookId: hook.id } },
      el('h2', {}, el('code', { text: hook.url })),
      el('p', { text: `${hook.cafeId || t('web.ops.all_cafes')} · ${hook.events.join(', ')}` }),
      el('div', { class: 'row-buttons' },
        el('button', { type: 'button', class: 'secondary', text: t('web.ops.deliveries'),
          onclick: (event) => loadDeliveries(hook, event.target.closest('.webhook')) }),
        el('button', { type: 'button', class: 'secondary', text: t('web.ops.rotate_secret'), onclick: () => rotate(hook) }),
        el('button', { type: 'button', class: 'danger', text: t('web.ops.delete'), onclick: () => deleteWebhook(hook) })),
      el('div', { class: 'deliveries' }))));
  }

  async function loadDeliveries(hook, card) {
    try {
      const deliveries = (await request('GET', `/v1/webhooks/${path(hook.id)}/deliveries?limit=20`)).body.deliveries;
      $('.deliveries', card).replaceChildren(deliveries.length ? el('table', { class: 'delivery-table' },
        el('thead', {}, el('tr', {}, ['web.ops.event', 'web.ops.state', 'web.ops.attempts', 'web.ops.answer', '']
          .map((key) => el('th', { text: key ? t(key) : '' })))),
        el('tbody', {}, deliveries.map((delivery) => {
          const last = delivery.attempts[delivery.attempts.length - 1];
          return el('tr', { dataset: { eventId: delivery.eventId, state: delivery.state } },
            el('td', {}, delivery.type, el('br'), el('small', { text: delivery.eventId })),
            el('td', { text: t(`web.ops.delivery_${delivery.state}`) || delivery.state }),
            el('td', { text: number.format(delivery.attempts.length) }),
            el('td', { text: last ? (last.statusCode ? `HTTP ${last.statusCode}` : last.error || '—') : '—' }),
            el('td', {}, el('button', { type: 'button', class: 'secondary', text: t('web.ops.redeliver'),
              onclick: () => redeliver(hook, delivery, card) })));
        }))) : el('p', { class: 'hint', text: t('web.ops.no_deliveries') }));
    } catch (error) {
      failed(error);
    }
  }

  async function redeliver(hook, delivery, card) {
    try {
      await request('POST', `/v1/webhooks/${path(hook.id)}/deliveries/${path(delivery.eventId)}/redeliver`);
      notify(t('web.ops.redelivering'));
      await loadDeliveries(hook, card);
    } catch (error) {
      failed(error);
    }
  }

  async function rotate(hook) {
    if (!(await confirmAction(t('web.ops.rotate_title'), t('web.ops.rotate_text'), t('web.ops.rotate_secret')))) return;
    try {
      const answer = (await request('POST', `/v1/webhooks/${path(hook.id)}/rotate-secret`)).body;
      showSecret({ title: t('web.ops.secret_rotated'), secret: answer.secret, label: t('web.ops.signing_secret') });
      await loadWebhooks();
    } catch (error) {
      failed(error);
    }
  }

  async function deleteWebhook(hook) {
    if (!(await confirmAction(t('web.ops.delete_webhook_title'), hook.url, t('web.ops.delete')))) return;
    try {
      await request('DELETE', `/v1/webhooks/${path(hook.id)}`);
      await loadWebhooks();
    } catch (error) {
      failed(error);
    }
  }

  // MARK: - Cards and coupons

  async function openCards() {
    const search = $('.card-search');
    if (!search.dataset.bound) {
      search.dataset.bound = 'true';
      search.addEventListener('submit', (event) => { event.preventDefault(); loadCards(); });
      $('.enrolment-button', search).addEventListener('click', enrolmentCode);
      $('.coupon-form').addEventListener('submit', (event) => { event.preventDefault(); issueCoupon(); });
    }
    await loadCoupons();
  }

  async function loadCards() {
    const form = $('.card-search');
    clearErrors(form);
    const userId = String(new FormData(form).get('userId')).trim();
    try {
      const cards = (await request('GET', `/v1/users/${path(userId)}/cards`)).body.cards;
      $('.card-list').replaceChildren(cards.length ? el('ul', { class: 'cards' }, cards.map((card) => el('li', {
        dataset: { cardId: card.id } },
      `${card.displayName || card.userId} · ${card.technology} · `,
      el('time', { datetime: card.createdAt, text: dateTime.format(new Date(card.createdAt)) }), ' ',
      el('button', { type: 'button', class: 'danger', text: t('web.ops.remove'), onclick: () => removeCard(userId, card) }))))
        : el('p', { class: 'hint', text: t('web.ops.no_cards', { user: userId }) }));
    } catch (error) {
      showRefusal(form, error);
    }
  }

  async function removeCard(userId, card) {
    if (!(await confirmAction(t('web.ops.remove_card_title'), `${card.displayName || userId} · ${card.technology}`,
      t('web.ops.remove')))) return;
    try {
      await request('DELETE', `/v1/users/${path(userId)}/cards/${path(card.id)}`);
      await loadCards();
    } catch (error) {
      failed(error);
    }
  }

  async function enrolmentCode() {
    const form = $('.card-search');
    clearErrors(form);
    const userId = String(new FormData(form).get('userId')).trim();
    try {
      const answer = (await request('POST', '/v1/cards/enrolments', { body: { userId } })).body;
      showSecret({ title: t('web.ops.enrolment_title', { user: userId }), secret: answer.code,
        label: t('web.ops.enrolment_code') });
    } catch (error) {
      showRefusal(form, error);
    }
  }

  async function issueCoupon() {
    const form = $('.coupon-form');
    clearErrors(form);
    const data = new FormData(form);
    const body = { label: String(data.get('label')).trim() };
    const itemId = String(data.get('itemId')).trim();
    if (itemId) {
      body.itemId = itemId;
    } else {
      const currency = String(data.get('currency')).trim().toUpperCase();
      const amount = minorUnits(form, $('[name=amount]', form), Canteen.currencyDigits(currency));
      if (amount === null) return;
      body.amountOff = { amount, currency };
    }
    if (data.get('cafe')) body.cafeId = String(data.get('cafe'));
    const uses = String(data.get('maxUses')).trim();
    body.maxUses = /^\d+$/.test(uses) ? Number(uses) : uses;
    try {
      await request('POST', '/v1/coupons', { body });
      form.reset();
      await loadCoupons();
    } catch (error) {
      showRefusal(form, error);
    }
  }

  async function loadCoupons() {
    const coupons = (await request('GET', '/v1/coupons')).body.coupons;
    $('.coupon-table tbody').replaceChildren(...coupons.map((coupon) => {
      const benefit = coupon.amountOff
        ? Canteen.money(coupon.amountOff.amount, coupon.amountOff.currency)
        : t('web.ops.free_item', { item: coupon.itemId });
      const live = !coupon.revokedAt;
      return el('tr', { dataset: { couponId: coupon.id } },
        el('td', {}, el('code', { text: coupon.id })), el('td', { text: coupon.label }), el('td', { text: benefit }),
        el('td', { text: coupon.cafeId || t('web.ops.all_cafes') }),
        el('td', { text: number.format(coupon.uses) }),
        el('td', { text: number.format(Math.max(0, coupon.maxUses - coupon.uses)) }),
        el('td', { text: live ? t('web.ops.active') : t('web.ops.withdrawn') }),
        el('td', {}, live ? el('button', { type: 'button', class: 'danger', text: t('web.ops.withdraw'),
          onclick: () => withdraw(coupon) }) : null));
    }));
  }

  async function withdraw(coupon) {
    if (!(await confirmAction(t('web.ops.withdraw_title', { id: coupon.id }), coupon.label, t('web.ops.withdraw')))) return;
    try {
      await request('DELETE', `/v1/coupons/${path(coupon.id)}`);
      await loadCoupons();
    } catch (error) {
      failed(error);
    }
  }

  // MARK: - Reports

  async function openReports() {
    const form = $('.report-form');
    if (!form.dataset.bound) {
      form.dataset.bound = 'true';
      form.addEventListener('submit', (event) => { event.preventDefault(); loadReports(); });
      $$('.csv-button').forEach((button) => button.addEventListener('click', () => downloadCSV(button)));
    }
    const cafe = cafeNamed($('[name=cafe]', form).value);
    if (cafe && !$('[name=from]', form).value) {
      $('[name=from]', form).value = Canteen.zonedToday(cafe.timeZone);
      $('[name=to]', form).value = Canteen.zonedToday(cafe.timeZone);
    }
  }

  function reportQuery(report, by) {
    const data = new FormData($('.report-form'));
    const cafe = String(data.get('cafe'));
    const query = report === 'windows' ? `date=${path(String(data.get('to')))}`
      : `from=${path(String(data.get('from')))}&to=${path(String(data.get('to')))}${by ? `&by=${by}` : ''}`;
    return `/v1/cafes/${path(cafe)}/reports/${report}?${query}`;
  }

  async function loadReports() {
    const form = $('.report-form');
    clearErrors(form);
    try {
      const [hours, days, items, kitchen, windows] = await Promise.all([
        request('GET', reportQuery('sales', 'hour')), request('GET', reportQuery('sales', 'day')),
        request('GET', reportQuery('sales', 'item')), request('GET', reportQuery('kitchen')),
        request('GET', reportQuery('windows')),
      ].map((call) => call.then((answer) => answer.body)));
      renderReports({ hours, days, items, kitchen, windows });
    } catch (error) {
      showRefusal(form, error);
    }
  }

  function table(element, headers, rows) {
    element.replaceChildren(el('thead', {}, el('tr', {}, headers.map((header) => el('th', { scope: 'col', text: header })))),
      el('tbody', {}, rows));
  }

  function renderReports({ hours, days, items, kitchen, windows }) {
    const results = $('.report-results');
    results.hidden = false;
    const own = hours.rows.filter((row) => row.currency === hours.currency);
    $('.chart-hours', results).replaceChildren(CanteenCharts.columns({
      title: t('web.ops.sales_by_hour'),
      description: t('web.ops.sales_by_hour_description', { from: hours.from, to: hours.to, zone: hours.timeZone }),
      bars: own.map((row) => ({ label: String(row.hour).padStart(2, '0'), value: row.revenue,
        text: `${Canteen.money(row.revenue, hours.currency)} · ${number.format(row.orders)}` })),
    }), el('figcaption', { text: t('web.ops.chart_hours_caption', { zone: hours.timeZone }) }));
    const salesHeaders = [t('web.ops.orders'), t('web.ops.items_sold'), t('web.ops.revenue'), t('web.ops.cancelled_orders'),
      t('web.ops.cancelled_revenue')];
    const salesCells = (row) => [el('td', { dataset: { figure: 'orders' }, text: number.format(row.orders) }),
      el('td', { dataset: { figure: 'items' }, text: number.format(row.items) }),
      el('td', { dataset: { figure: 'revenue', minor: String(row.revenue) },
        text: Canteen.money(row.revenue, row.currency) }),
      el('td', { dataset: { figure: 'cancelled' }, text: number.format(row.cancelledOrders) }),
      el('td', { text: Canteen.money(row.cancelledRevenue, row.currency) })];
    table($('.report-days', results), [t('web.ops.date'), ...salesHeaders],
      days.rows.map((row) => el('tr', { dataset: { date: row.date } }, el('th', { scope: 'row', text: row.date }),
        salesCells(row))));
    table($('.report-items', results), [t('web.ops.item'), ...salesHeaders],
      items.rows.map((row) => el('tr', { dataset: { item: row.item } }, el('th', { scope: 'row', text: row.name || row.item }),
        salesCells(row))));
    const ready = kitchen.stations.filter((station) => station.ready > 0);
    $('.chart-kitchen', results).replaceChildren(ready.length ? CanteenCharts.rows({
      title: t('web.ops.kitchen_times'), description: t('web.ops.kitchen_description'),
      groups: ready.map((station) => ({ label: station.station, bars: [
        { key: 'p50', name: t('web.ops.p50'), value: station.p50Seconds, text: Canteen.duration(station.p50Seconds * 1000) },
        { key: 'p90', name: t('web.ops.p90'), value: station.p90Seconds, text: Canteen.duration(station.p90Seconds * 1000) },
        { key: 'max', name: t('web.ops.max'), value: station.maxSeconds, text: Canteen.duration(station.maxSeconds * 1000) },
      ] })),
    }) : el('p', { class: 'hint', text: t('web.ops.no_ready_tickets') }),
    el('table', { class: 'report-stations' },
      el('thead', {}, el('tr', {}, [t('web.ops.station'), t('web.ops.tickets'), t('web.ops.ready'),
        t('web.ops.ready_by_start')].map((header) => el('th', { scope: 'col', text: header })))),
      el('tbody', {}, kitchen.stations.map((station) => el('tr', { dataset: { station: station.station } },
        el('th', { scope: 'row', text: station.station }), el('td', { text: number.format(station.tickets) }),
        el('td', { text: number.format(station.ready) }), el('td', { text: number.format(station.readyByWindowStart) }))))));
    $('.orders-ready', results).textContent = t('web.ops.orders_ready', {
      ready: number.format(kitchen.orders.readyByWindowStart), orders: number.format(kitchen.orders.ready),
    });
    const time = Canteen.timeOfDay(windows.timeZone);
    table($('.report-windows', results), [t('web.ops.window'), t('web.ops.capacity'), t('web.ops.used'), t('web.ops.orders'),
      t('web.ops.refused')], windows.windows.filter((window) => window.orders || window.refused || window.used)
      .map((window) => el('tr', { dataset: { start: window.start } },
        el('th', { scope: 'row', text: `${time.format(new Date(window.start))}–${time.format(new Date(window.end))}` }),
        el('td', { text: number.format(window.capacity) }), el('td', { text: number.format(window.used) }),
        el('td', { dataset: { figure: 'orders' }, text: number.format(window.orders) }),
        el('td', { dataset: { figure: 'refused' }, text: number.format(window.refused) }))));
  }

  /** Fetches a report as CSV (`Accept: text/csv`) and hands it to the browser as a file. */
  async function downloadCSV(button) {
    const url = reportQuery(button.dataset.report, button.dataset.by);
    const form = $('.report-form');
    clearErrors(form);
    try {
      const answer = await request('GET', url, { accept: 'text/csv' });
      const link = el('a', { href: URL.createObjectURL(answer.body),
        download: `${button.dataset.report}${button.dataset.by ? `-${button.dataset.by}` : ''}.csv` });
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) {
      showRefusal(form, error);
    }
  }

  // MARK: - Audit log

  async function openAudit() {
    const form = $('.audit-form');
    if (!form.dataset.bound) {
      form.dataset.bound = 'true';
      form.addEventListener('submit', (event) => { event.preventDefault(); loadAudit(false); });
      $('.audit-more').addEventListener('click', () => loadAudit(true));
    }
    await loadAudit(false);
  }

  /** A value of the audit log as text: an amount of money ({amount, currency}) as money, other objects as JSON. */
  function auditValue(value) {
    if (value === undefined) return '∅';
    if (typeof value === 'string') return value;
    const keys = value && typeof value === 'object' ? Object.keys(value).sort().join() : '';
    if (keys === 'amount,currency' && Number.isInteger(value.amount) && typeof value.currency === 'string') {
      return Canteen.money(value.amount, value.currency);
    }
    return JSON.stringify(value);
  }

  async function loadAudit(more) {
    const form = $('.audit-form');
    clearErrors(form);
    const data = new FormData(form);
    const query = new URLSearchParams({ limit: '50' });
    if (data.get('cafe')) query.set('cafeId', String(data.get('cafe')));
    // Days are the café's when one is chosen (else the reader's own).
    const zone = cafeNamed(String(data.get('cafe')))?.timeZone;
    if (data.get('from')) query.set('from', Canteen.dayStart(zone, String(data.get('from'))).toISOString());
    if (data.get('to')) query.set('to', Canteen.dayStart(zone, String(data.get('to')), 1).toISOString());
    if (more && state.auditNext) query.set('after', state.auditNext);
    try {
      const page = (await request('GET', `/v1/audit?${query}`)).body;
      state.auditNext = page.next;
      const items = page.entries.map((entry) => el('li', { class: 'audit-entry', dataset: { action: entry.action,
        entryId: entry.id } },
      el('p', { class: 'audit-head' },
        el('time', { datetime: entry.at, text: dateTime.format(new Date(entry.at)) }), ' ',
        el('strong', { text: entry.actor.tokenName || entry.actor.userId || entry.actor.tokenId || '—' }),
        ` (${t(`web.role.${entry.actor.role}`) || entry.actor.role}) `,
        el('span', { class: 'audit-action', text: t(`web.ops.action.${entry.action}`) || entry.action }), ' ',
        el('code', { text: `${entry.target.kind} ${entry.target.id}` }),
        entry.cafeId ? ` · ${entry.cafeId}` : ''),
      entry.changes.length ? el('ul', { class: 'audit-changes' }, entry.changes.map((change) => el('li', {},
        el('code', { text: change.field }), ': ', el('span', { class: 'before', text: auditValue(change.before) }), ' → ',
        el('span', { class: 'after', text: auditValue(change.after) })))) : null));
      const list = $('.audit-list');
      if (more) list.append(...items); else list.replaceChildren(...items);
      $('.audit-empty').hidden = list.children.length > 0;
      $('.audit-more').hidden = !page.next;
    } catch (error) {
      showRefusal(form, error);
    }
  }

  document.addEventListener('DOMContentLoaded', start);
})();
