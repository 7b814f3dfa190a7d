// The employee's page (`/app`): signed in with the company's identity provider (a session
// cookie) or with a user token in the URL fragment (`#token=…`, for deployments without a
// provider), it opens the café Canteen chooses for the person (preferred, nearest, fallback, and
// says why), shows its menu, takes a basket and a pickup window, places the order with one
// Idempotency-Key per basket, and follows it live until it is ready: a message, a sound and a
// browser notification. "My orders" lists recent orders with "order again". Installable (a web
// app manifest and a service worker); offline it says so and shows the last menu, read-only.
//
// Stable hooks: `data-item-id` on items, `data-order-id` and `data-order-status` on the current
// order and on each of "my orders", `data-reason` on the café's reason, `role="alert"` banner.
'use strict';

(() => {
  const { t, el, storage, connection, request, ApiError, NetworkError, notify } = Canteen;

  const state = {
    me: null,
    cafe: null,
    reason: null,
    menu: null,
    etag: null,
    items: new Map(),
    basket: null,
    windows: null,
    choice: 'asap',
    placing: false,
    current: null,
    follower: null,
    offline: false,
  };
  const ui = () => document.getElementById('app');
  const $ = (selector, root = document) => root.querySelector(selector);

  function newBasket() {
    return { lines: [], key: null, keyedBody: null, outcome: 'none' };
  }

  // MARK: - Signing in

  /** Who is signed in (the session cookie, or a stored user token); null when nobody is. */
  async function whoAmI() {
    try {
      return (await request('GET', '/v1/me', { timeoutMs: 8000 })).body;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        if (storage.get('token')) storage.set('token', null);
        return null;
      }
      throw error;
    }
  }

  function showSignIn(message = '') {
    document.querySelectorAll('[data-screen]').forEach((screen) => { screen.hidden = screen.id !== 'signin'; });
    $('#signin .signin-message').textContent = message;
    document.documentElement.dataset.signedIn = 'false';
  }

  /** A user token from the fragment (`#token=…`) is kept on this device and removed from the address. */
  function takeTokenFromFragment() {
    if (!location.hash.includes('token=')) return;
    const fragment = new URLSearchParams(location.hash.slice(1));
    const token = (fragment.get('token') || '').trim();
    if (token) storage.set('token', token);
    history.replaceState(history.state, '', location.pathname + location.search);
  }

  // MARK: - The café

  async function chooseCafe(body) {
    const answer = await request('POST', `/v1/users/${encodeURIComponent(state.me.userId)}/cafe`, { body });
    return answer.body;
  }

  async function openCafe(choice) {
    state.cafe = choice.cafe;
    state.reason = { reason: choice.reason, detail: choice.detail };
    state.etag = null;
    state.windows = null;
    state.basket = newBasket();
    state.choice = 'asap';
    const reason = $('.cafe-reason', ui());
    reason.dataset.reason = choice.reason;
    reason.textContent = t(`web.app.reason_${choice.reason}`);
    reason.title = choice.detail;
    $('.cafe-name', ui()).textContent = choice.cafe.name;
    document.title = `${choice.cafe.name} · ${t('web.app.title')}`;
    await loadMenu();
    loadWindows();
  }

  // MARK: - The menu

  async function loadMenu() {
    const headers = state.etag ? { 'If-None-Match': state.etag } : {};
    const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/menu`, { headers, timeoutMs: 8000 });
    if (answer.status === 304) return false;
    state.etag = answer.headers.get('ETag');
    setMenu(answer.body);
    storage.set('lastMenu', JSON.stringify({ cafe: state.cafe, reason: state.reason, menu: state.menu, me: state.me }));
    return true;
  }

  function setMenu(menu) {
    state.menu = menu;
    state.items = new Map();
    for (const category of menu.categories) category.items.forEach((item) => state.items.set(item.id, item));
    renderMenu();
    renderBasket();
  }

  /** Keeps the menu current: a sold-out mark shows within seconds (304s cost nothing). */
  async function followMenu() {
    for (;;) {
      await Canteen.sleep(5000);
      await connection.whenOnline();
      if (state.offline) continue;
      try { await loadMenu(); } catch { /* the banner says it */ }
    }
  }

  function allergenList(item) {
    if (!item.allergens.length) return null;
    return el('ul', { class: 'allergens', 'aria-label': t('web.kiosk.allergens') },
      item.allergens.map((code) => el('li', { dataset: { allergen: code }, text: t(`allergen.${code}`) || code })));
  }

  function modifierSummary(item) {
    if (!item.modifierGroups.length) return null;
    return el('span', { class: 'item-modifiers', text: item.modifierGroups.map((group) => `${group.name} (${Canteen.groupRule(group)})`).join(' · ') });
  }

  function renderMenu() {
    const readOnly = state.offline;
    $('.categories', ui()).replaceChildren(...state.menu.categories.map((category) => el('button', {
      type: 'button', class: 'category-link', text: category.name,
      onclick: () => document.getElementById(`category-${category.id}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' }),
    })));
    $('.menu', ui()).replaceChildren(...state.menu.categories.map((category) => el('section', {
      class: 'category', id: `category-${category.id}`, 'aria-labelledby': `category-title-${category.id}`,
    },
    el('h2', { id: `category-title-${category.id}`, text: category.name }),
    el('div', { class: 'items' }, category.items.map((item) => el('button', {
      type: 'button', class: `item${item.available ? '' : ' is-unavailable'}`, disabled: !item.available || readOnly,
      'aria-disabled': String(!item.available || readOnly),
      dataset: { itemId: item.id, available: String(item.available) }, onclick: () => openItem(item.id),
    },
    el('span', { class: 'item-name', text: item.name }),
    el('span', { class: 'item-price', text: item.price.formatted }),
    item.description ? el('span', { class: 'item-description', text: item.description }) : null,
    modifierSummary(item),
    allergenList(item),
    item.available ? null : el('span', { class: 'item-unavailable', text: item.unavailableLabel || t('label.unavailable') })))))));
  }

  // MARK: - Choosing an item

  let editing = null;

  function openItem(itemId) {
    const item = state.items.get(itemId);
    if (!item || !item.available || state.offline || state.basket.outcome === 'unknown') return;
    const dialog = document.getElementById('item-dialog');
    editing = Canteen.itemChoice(dialog, item);
    dialog.returnValue = '';
    dialog.showModal();
  }

  function addEditedItem() {
    if (!editing || !editing.check()) return;
    addLine(editing.line());
    editing = null;
  }

  function addLine(line) {
    state.basket.lines.push({ key: Canteen.randomKey('l'), ...line });
    basketChanged();
    notify(t('web.app.added', { item: line.name }), { timeoutMs: 2500 });
  }

  // MARK: - The basket

  function basketChanged() {
    state.basket.key = null;
    state.basket.keyedBody = null;
    renderBasket();
  }

  function units() { return state.basket.lines.reduce((sum, line) => sum + line.quantity, 0); }

  function unavailableLines() { return state.basket.lines.filter((line) => !state.items.get(line.itemId)?.available); }

  function renderBasket() {
    if (!state.menu || !state.basket) return;
    const basket = state.basket;
    const locked = basket.outcome === 'unknown' || state.offline;
    $('.basket-lines', ui()).replaceChildren(...basket.lines.map((line) => {
      const available = !!state.items.get(line.itemId)?.available;
      return el('li', { class: `basket-line${available ? '' : ' is-unavailable'}`, dataset: { lineItemId: line.itemId } },
        el('div', { class: 'line-main' },
          el('span', { class: 'line-name', text: `${line.quantity}× ${line.name}` }),
          el('span', { class: 'line-price', text: Canteen.money(line.unit * line.quantity, state.menu.currency) })),
        line.optionNames.length ? el('p', { class: 'line-options', text: line.optionNames.join(', ') }) : null,
        line.note ? el('p', { class: 'line-note', text: line.note }) : null,
        available ? null : el('p', { class: 'line-problem', text: t('web.kiosk.no_longer_available') }),
        el('div', { class: 'line-actions' },
          el('button', { type: 'button', class: 'step minus', disabled: locked || line.quantity <= 1, 'aria-label': `${t('web.kiosk.less')} ${line.name}`, text: '−',
            onclick: () => { line.quantity -= 1; basketChanged(); } }),
          el('button', { type: 'button', class: 'step plus', disabled: locked || line.quantity >= 99 || !available, 'aria-label': `${t('web.kiosk.more')} ${line.name}`, text: '+',
            onclick: () => { line.quantity += 1; basketChanged(); } }),
          el('button', { type: 'button', class: 'remove', disabled: locked, text: t('web.kiosk.remove'),
            onclick: () => { state.basket.lines = state.basket.lines.filter((other) => other.key !== line.key); basketChanged(); } })));
    }));
    const subtotal = basket.lines.reduce((sum, line) => sum + line.unit * line.quantity, 0);
    $('.subtotal-amount', ui()).textContent = Canteen.money(subtotal, state.menu.currency);
    $('.basket-total', ui()).textContent = basket.lines.length ? Canteen.money(subtotal, state.menu.currency) : '';
    $('.basket-empty', ui()).hidden = basket.lines.length > 0;
    $('.basket-count', ui()).textContent = String(units());
    const problems = unavailableLines();
    const hint = $('.basket-hint', ui());
    hint.hidden = problems.length === 0;
    hint.textContent = problems.length ? t('web.kiosk.remove_unavailable') : '';
    $('.place-button', ui()).disabled = locked || basket.lines.length === 0 || problems.length > 0 || state.placing;
    renderWindows();
  }

  // MARK: - Pickup windows

  async function loadWindows() {
    if (!state.cafe || state.offline) return;
    try {
      state.windows = (await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/pickup-windows`)).body;
    } catch (error) {
      if (error instanceof ApiError) state.windows = { windows: [], capacityUnit: 'orders', error: error.message };
    }
    renderWindows();
  }

  function renderWindows() {
    const list = $('.window-list', ui());
    if (!state.windows) { list.replaceChildren(el('p', { class: 'loading', text: t('web.common.loading') })); return; }
    const need = state.windows.capacityUnit === 'items' ? Math.max(1, units()) : 1;
    const locked = state.basket.outcome === 'unknown' || state.offline;
    const windows = state.windows.windows;
    if (state.choice !== 'asap' && !windows.some((window) => window.start === state.choice && window.remaining >= need)) state.choice = 'asap';
    const choices = [{ start: 'asap', label: t('label.asap'), remaining: windows.some((window) => window.remaining >= need) ? null : 0 },
      ...windows];
    list.replaceChildren(...choices.map((window) => {
      const full = window.remaining !== null && window.remaining < need;
      const detail = window.start === 'asap' ? (full ? t('web.kiosk.window_full') : '')
        : full ? t('web.kiosk.window_full') : t('web.kiosk.window_left', { count: window.remaining });
      return el('label', { class: `window${full ? ' is-full' : ''}`, dataset: { windowStart: window.start } },
        el('input', { type: 'radio', name: 'window', value: window.start, disabled: full || locked,
          checked: state.choice === window.start, onchange: () => { state.choice = window.start; } }),
        el('span', { class: 'window-label', text: window.label }),
        el('span', { class: 'window-left', text: detail }));
    }));
    if (state.windows.error) list.append(el('p', { class: 'line-problem', text: state.windows.error }));
  }

  // MARK: - Placing the order

  function orderBody() {
    const body = {
      cafeId: state.cafe.id,
      lines: state.basket.lines.map((line) => {
        const requested = { itemId: line.itemId, quantity: line.quantity };
        if (line.options.length) requested.options = line.options;
        if (line.note) requested.note = line.note;
        return requested;
      }),
      pickup: state.choice === 'asap' ? 'asap' : { start: state.choice },
      customer: { name: (state.me.name || state.me.userId).slice(0, 80), userId: state.me.userId },
    };
    return body;
  }

  function showPlaceError(message) {
    const box = $('.place-error', ui());
    box.hidden = !message;
    box.textContent = message || '';
  }

  /**
   * Places the order. The key is made once for this basket's request and reused on every retry;
   * while an attempt's outcome is unknown the basket is locked, so a retry is always the same
   * request and the server answers it with the one order it placed.
   */
  async function place() {
    if (state.placing || state.offline) return;
    const basket = state.basket;
    if (basket.outcome !== 'unknown') {
      const body = JSON.stringify(orderBody());
      if (basket.keyedBody !== body) {
        basket.key = Canteen.randomKey('app-');
        basket.keyedBody = body;
      }
    }
    state.placing = true;
    showPlaceError('');
    const button = $('.place-button', ui());
    button.disabled = true;
    button.textContent = t('web.kiosk.placing');
    Canteen.sound.unlock();
    askForNotifications();
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const answer = await request('POST', '/v1/orders', {
            body: JSON.parse(basket.keyedBody), headers: { 'Idempotency-Key': basket.key }, timeoutMs: 15000,
          });
          placed(answer.body);
          return;
        } catch (error) {
          if (error instanceof ApiError && error.code === 'idempotency_key_in_use') {
            basket.outcome = 'unknown';
            await Canteen.sleep(1000);
            continue;
          }
          if (error instanceof NetworkError || (error instanceof ApiError && error.status >= 500)) {
            basket.outcome = 'unknown';
            renderBasket();
            if (attempt < 4) {
              showPlaceError(t('web.kiosk.retrying'));
              await Canteen.sleep(1000 * 2 ** (attempt - 1));
              await connection.whenOnline();
              continue;
            }
            showPlaceError(t('web.kiosk.outcome_unknown'));
            return;
          }
          basket.outcome = 'none';
          if (error instanceof ApiError && error.status === 401) { start(); return; }
          showPlaceError(error.message);
          if (['pickup_window_full', 'pickup_window_unavailable', 'cafe_closed'].includes(error.code)) loadWindows();
          if (['item_unavailable', 'unknown_item', 'unknown_option', 'invalid_selection'].includes(error.code)) loadMenu().catch(() => {});
          return;
        }
      }
    } finally {
      state.placing = false;
      button.textContent = t('web.kiosk.place');
      renderBasket();
    }
  }

  function placed(order) {
    state.basket = newBasket();
    state.choice = 'asap';
    ui().classList.remove('show-basket');
    renderBasket();
    follow(order);
    loadOrders();
  }

  // MARK: - Following the order

  /** The current order's element: `data-order-id`, `data-order-status`. */
  function renderCurrent(order) {
    const section = $('.current-order', ui());
    if (!order) { section.hidden = true; return; }
    const previous = section.dataset.orderStatus;
    section.hidden = false;
    section.dataset.orderId = order.id;
    section.dataset.orderStatus = order.status;
    $('.current-number', section).textContent = Canteen.wholeNumber.format(order.number);
    $('.current-status', section).textContent = order.statusLabel;
    $('.current-pickup', section).textContent = t('web.kiosk.pickup_at', { window: order.pickup.label });
    const readyAt = $('.current-ready-at', section);
    readyAt.hidden = !order.readyAt || order.status === 'ready' || order.status === 'picked_up';
    if (order.readyAt) {
      const at = new Date(order.readyAt);
      if (!Number.isNaN(at.getTime())) {
        readyAt.textContent = t('web.app.ready_at', {
          time: Canteen.timeOfDay(state.cafe?.timeZone).format(at),
        });
      }
    }
    $('.notify-button', section).hidden = !('Notification' in window) || Notification.permission !== 'default';
    if (order.status === 'ready' && previous !== 'ready') announceReady(order);
  }

  /** Ready: the page says so, plays the chime and shows a notification (once the person allowed them). */
  function announceReady(order) {
    const message = t('web.app.ready_message', { number: order.number, cafe: state.cafe?.name || '' });
    notify(message, { kind: 'success', timeoutMs: 20000 });
    Canteen.sound.play('ready');
    document.documentElement.dataset.lastReady = order.id;
    if ('Notification' in window && Notification.permission === 'granted') {
      try {
        const notification = new Notification(t('web.app.ready_title'), { body: message, tag: `order-${order.id}`, lang: document.documentElement.lang });
        window.dispatchEvent(new CustomEvent('canteen:notification', { detail: { orderId: order.id, title: notification.title } }));
      } catch {
        navigator.serviceWorker?.ready.then((registration) => registration.showNotification(t('web.app.ready_title'), { body: message, tag: `order-${order.id}` })).catch(() => {});
      }
    }
  }

  function askForNotifications() {
    if (!('Notification' in window) || Notification.permission !== 'default') return;
    Notification.requestPermission().then(() => renderCurrent(state.current)).catch(() => {});
  }

  function isFinal(status) { return status === 'picked_up' || status === 'cancelled'; }

  /**
   * Follows `order` until it is picked up or cancelled: the order's event stream with the session
   * cookie; with a token (an EventSource cannot send one) by long-polling the order.
   */
  function follow(order) {
    state.follower?.stop();
    state.current = order;
    storage.set('currentOrder', order.id);
    renderCurrent(order);
    if (isFinal(order.status)) return;
    let stopped = false;
    let source = null;
    const update = (next) => {
      if (stopped || next.id !== state.current?.id) return;
      state.current = next;
      renderCurrent(next);
      updateListedOrder(next);
      if (isFinal(next.status)) { stop(); storage.set('currentOrder', null); }
    };
    const stop = () => { stopped = true; source?.close(); };
    state.follower = { stop };
    if (!storage.get('token') && 'EventSource' in window) {
      source = new EventSource(`/v1/orders/${encodeURIComponent(order.id)}/events`);
      for (const type of ['order.placed', 'order.preparing', 'order.ready', 'order.picked_up', 'order.cancelled']) {
        source.addEventListener(type, (event) => {
          connection.reached();
          try { update(JSON.parse(event.data).data); } catch { /* not an order event */ }
        });
      }
      // An EventSource reconnects by itself (with Last-Event-ID); a finished order answers 204.
      return;
    }
    (async () => {
      let etag = null;
      while (!stopped) {
        try {
          const headers = etag ? { 'If-None-Match': etag } : {};
          const answer = await request('GET', `/v1/orders/${encodeURIComponent(order.id)}${etag ? '?wait=25' : ''}`,
            { headers, timeoutMs: 35000 });
          etag = answer.headers.get('ETag') || etag;
          if (answer.status !== 304) update(answer.body);
        } catch (error) {
          if (error instanceof ApiError) return;
          await connection.whenOnline();
        }
      }
    })();
  }

  // MARK: - My orders

  async function loadOrders() {
    if (state.offline) return;
    let orders;
    try {
      orders = (await request('GET', '/v1/me/orders?limit=20')).body.orders;
    } catch { return; }
    state.orders = orders;
    renderOrders();
    const open = orders.find((order) => !isFinal(order.status) && (order.id === storage.get('currentOrder') || !state.current));
    if (open && state.current?.id !== open.id) follow(open);
  }

  function renderOrders() {
    const orders = state.orders || [];
    $('.orders-empty', ui()).hidden = orders.length > 0;
    $('.order-list', ui()).replaceChildren(...orders.map((order) => el('li', {
      class: 'past-order', dataset: { orderId: order.id, orderStatus: order.status, cafeId: order.cafeId },
    },
    el('div', { class: 'past-head' },
      el('strong', { class: 'past-number', text: `#${Canteen.wholeNumber.format(order.number)}` }),
      el('span', { class: `past-status status-${order.status}`, text: order.statusLabel }),
      el('span', { class: 'past-total', text: order.total.formatted })),
    el('p', { class: 'past-lines', text: order.lines.filter((line) => line.kind !== 'discount').map((line) => `${line.quantity}× ${line.name}`).join(', ') }),
    el('p', { class: 'past-when', text: order.pickup.label }),
    el('button', { type: 'button', class: 'secondary order-again', disabled: state.offline, text: t('web.app.order_again'),
      onclick: () => orderAgain(order) }))));
  }

  function updateListedOrder(order) {
    const index = (state.orders || []).findIndex((candidate) => candidate.id === order.id);
    if (index >= 0) { state.orders[index] = order; renderOrders(); }
  }

  /**
   * The same items again, in a new basket for a new window: lines whose item (or option) is no
   * longer on the menu or not available now are named, never silently dropped.
   */
  async function orderAgain(order) {
    if (order.cafeId !== state.cafe.id) {
      try { await openCafe(await chooseCafeFixed(order.cafeId)); } catch (error) { notify(error.message, { kind: 'error' }); return; }
    }
    const missing = [];
    for (const line of order.lines.filter((candidate) => candidate.kind !== 'discount')) {
      const item = state.items.get(line.itemId);
      const options = line.options.map((option) => option.id);
      const known = item && line.options.every((option) => item.modifierGroups.some((group) => group.id === option.groupId
        && group.options.some((candidate) => candidate.id === option.id)));
      if (!item || !item.available || !known) { missing.push(line.name); continue; }
      let unit = item.price.amount;
      const optionNames = [];
      for (const option of line.options) {
        const group = item.modifierGroups.find((candidate) => candidate.id === option.groupId);
        const current = group.options.find((candidate) => candidate.id === option.id);
        unit += current.priceDelta.amount;
        optionNames.push(current.name);
      }
      state.basket.lines.push({ key: Canteen.randomKey('l'), itemId: item.id, name: item.name, quantity: line.quantity,
        options, optionNames, note: line.note || '', unit });
    }
    basketChanged();
    state.choice = 'asap';
    loadWindows();
    showTab('menu');
    ui().classList.add('show-basket');
    const list = $('.basket-hint', ui());
    if (missing.length) {
      const message = t('web.app.not_available_again', { items: missing.join(', ') });
      list.hidden = false;
      list.textContent = message;
      list.dataset.missing = missing.join('|');
      notify(message, { kind: 'error', timeoutMs: 12000 });
    }
  }

  /** The café of an earlier order, as the café choice answers it (its menu ETag aside). */
  async function chooseCafeFixed(cafeId) {
    const cafes = (await request('GET', '/v1/cafes')).body.cafes;
    const cafe = cafes.find((candidate) => candidate.id === cafeId);
    if (!cafe) throw new Error(t('web.app.cafe_gone'));
    return { cafe, reason: 'preferred', detail: '' };
  }

  // MARK: - Switching café and default location

  async function openCafeDialog() {
    const dialog = document.getElementById('cafe-dialog');
    let cafes = [];
    try { cafes = (await request('GET', '/v1/cafes')).body.cafes; } catch (error) { notify(error.message, { kind: 'error' }); return; }
    let preference = 'nearest';
    try {
      const answer = await request('GET', `/v1/users/${encodeURIComponent(state.me.userId)}/preferences/defaultLocation`);
      preference = answer.body.value;
    } catch { /* the registered default */ }
    $('.cafe-list', dialog).replaceChildren(...cafes.map((cafe) => el('button', {
      type: 'button', class: `cafe-choice${cafe.id === state.cafe.id ? ' is-current' : ''}`, dataset: { cafeId: cafe.id },
      onclick: async () => {
        dialog.close();
        await openCafe({ cafe, reason: 'preferred', detail: '' });
        $('.cafe-reason', ui()).textContent = t('web.app.reason_chosen');
        $('.cafe-reason', ui()).dataset.reason = 'chosen';
      },
    }, el('strong', { text: cafe.name }), el('span', { text: cafe.openNow ? t('label.open') : t('label.closed') }))));
    const nearest = $('input[value=nearest]', dialog);
    const here = $('input[value=cafe]', dialog);
    nearest.checked = preference === 'nearest';
    here.checked = preference === state.cafe.id;
    $('.default-cafe-label', dialog).textContent = t('web.app.always_this_cafe', { cafe: state.cafe.name });
    const save = async (value) => {
      try {
        await request('PUT', `/v1/users/${encodeURIComponent(state.me.userId)}/preferences/defaultLocation`, { body: value });
        notify(t('web.app.default_saved'));
      } catch (error) { notify(error.message, { kind: 'error' }); }
    };
    nearest.onchange = () => save('nearest');
    here.onchange = () => save(state.cafe.id);
    dialog.showModal();
  }

  // MARK: - Account and privacy

  function openAccount() {
    const dialog = document.getElementById('account-dialog');
    $('.account-name', dialog).textContent = state.me.name || state.me.userId;
    $('.account-email', dialog).textContent = state.me.email || '';
    $('.erase-confirm', dialog).hidden = true;
    dialog.showModal();
  }

  async function exportData() {
    try {
      const answer = await request('GET', '/v1/me/data', { timeoutMs: 30000 });
      const blob = new Blob([JSON.stringify(answer.body, null, 2)], { type: 'application/json' });
      const link = el('a', { href: URL.createObjectURL(blob), download: 'canteen-data.json' });
      document.body.append(link);
      link.click();
      link.remove();
    } catch (error) { notify(error.message, { kind: 'error' }); }
  }

  async function signOut() {
    try { await request('POST', '/auth/logout'); } catch { /* signed out locally anyway */ }
    storage.set('token', null);
    forget();
    location.replace('/app');
  }

  async function erase() {
    try {
      await request('DELETE', '/v1/me');
      storage.set('token', null);
      forget();
      document.getElementById('account-dialog').close();
      showSignIn(t('web.app.erased'));
    } catch (error) { notify(error.message, { kind: 'error' }); }
  }

  /** Nothing of the person stays on the device. */
  function forget() {
    for (const key of ['lastMenu', 'currentOrder']) storage.set(key, null);
  }

  // MARK: - Tabs, offline

  function showTab(name) {
    ui().querySelectorAll('.tab').forEach((tab) => tab.classList.toggle('is-active', tab.dataset.tab === name));
    ui().querySelectorAll('.panel').forEach((panel) => { panel.hidden = panel.dataset.panel !== name; });
    if (name === 'orders') loadOrders();
  }

  /** Without a network: say so and show the last menu, read-only. */
  function showOffline() {
    const saved = storage.get('lastMenu');
    if (!saved) { showSignIn(t('web.app.offline_no_menu')); return false; }
    const { cafe, reason, menu, me } = JSON.parse(saved);
    state.offline = true;
    state.me = me;
    state.cafe = cafe;
    state.reason = reason;
    state.basket = newBasket();
    document.documentElement.dataset.offline = 'true';
    document.getElementById('offline-note').hidden = false;
    $('.cafe-name', ui()).textContent = cafe.name;
    $('.cafe-reason', ui()).textContent = '';
    state.windows = { windows: [], capacityUnit: 'orders' };
    setMenu(menu);
    document.querySelectorAll('[data-screen]').forEach((screen) => { screen.hidden = screen.id !== 'app'; });
    ui().dataset.loaded = 'true';
    connection.whenOnline().then(() => location.reload());
    return true;
  }

  // MARK: - Start

  async function start() {
    takeTokenFromFragment();
    let me;
    try {
      me = await whoAmI();
    } catch (error) {
      if (error instanceof NetworkError && showOffline()) return;
      await connection.whenOnline();
      start();
      return;
    }
    if (!me) {
      const problem = new URLSearchParams(location.search).get('signin');
      showSignIn(problem ? t('web.app.signin_failed') : '');
      return;
    }
    state.me = me;
    document.documentElement.dataset.signedIn = 'true';
    document.querySelectorAll('[data-screen]').forEach((screen) => { screen.hidden = screen.id !== 'app'; });
    for (;;) {
      try {
        await openCafe(await chooseCafe());
        break;
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) { showSignIn(); return; }
        if (error instanceof ApiError) { notify(error.message, { kind: 'error' }); return; }
        await Canteen.sleep(2000);
        await connection.whenOnline();
      }
    }
    ui().dataset.loaded = 'true';
    loadOrders();
    followMenu();
    setInterval(() => { if (!state.placing && !state.offline) loadWindows(); }, 30000);
  }

  document.addEventListener('DOMContentLoaded', () => {
    const itemDialog = document.getElementById('item-dialog');
    itemDialog.addEventListener('close', () => { if (itemDialog.returnValue === 'add') addEditedItem(); });
    $('.quantity-row .minus', itemDialog).addEventListener('click', () => {
      editing.quantity = Math.max(1, editing.quantity - 1);
      $('.quantity', itemDialog).textContent = String(editing.quantity);
    });
    $('.quantity-row .plus', itemDialog).addEventListener('click', () => {
      editing.quantity = Math.min(99, editing.quantity + 1);
      $('.quantity', itemDialog).textContent = String(editing.quantity);
    });
    $('.place-button', ui()).addEventListener('click', place);
    $('.basket-toggle', ui()).addEventListener('click', () => ui().classList.toggle('show-basket'));
    $('.basket-close', ui()).addEventListener('click', () => ui().classList.remove('show-basket'));
    $('.switch-cafe', ui()).addEventListener('click', openCafeDialog);
    $('.account-button', ui()).addEventListener('click', openAccount);
    $('.notify-button', ui()).addEventListener('click', askForNotifications);
    ui().querySelectorAll('.tab').forEach((tab) => tab.addEventListener('click', () => showTab(tab.dataset.tab)));
    const account = document.getElementById('account-dialog');
    $('.export-button', account).addEventListener('click', exportData);
    $('.signout-button', account).addEventListener('click', signOut);
    $('.erase-button', account).addEventListener('click', () => { $('.erase-confirm', account).hidden = false; });
    $('.erase-confirm-button', account).addEventListener('click', erase);
    $('#signin .token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const token = new FormData(event.target).get('token').trim();
      if (!token) return;
      storage.set('token', token);
      start();
    });
    if ('serviceWorker' in navigator && window.isSecureContext) {
      navigator.serviceWorker.register('/app-sw.js', { scope: '/app' }).catch(() => {});
    }
    start();
  });

  window.CanteenApp = { state, follow };
})();
