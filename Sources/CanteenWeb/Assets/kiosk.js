// The kiosk (`/kiosk`): the café's menu in the reader's language, a basket, a pickup window and
// the order. Every menu item carries `data-item-id`. One Idempotency-Key per basket, reused on
// every retry of the same request, so a lost answer never places two orders.
//
// Other programs on the kiosk (issue 13's NFC agent) tell it who is ordering through
// `window.CanteenKiosk.badgeTapped({userId, name})`; the kiosk's NFC agent (`canteen nfc watch`, same
// token) reports taps to the server, and the page follows them (`GET /v1/taps`): a badge names who is
// ordering, a coupon tag (or `?coupon=CODE` in the URL, what a phone tapping the tag opens) is applied.
'use strict';

(() => {
  const { t, el, query, connection, request, ApiError, NetworkError, notify } = Canteen;

  const state = {
    cafe: null,
    menu: null,
    etag: null,
    items: new Map(),
    basket: null,
    windows: null,
    /** `asap` or the start of the chosen window. */
    choice: 'asap',
    placing: false,
    structure: '',
  };
  const ui = () => document.getElementById('kiosk');
  /** A café named in the URL stays: a badge tap does not move the kiosk to another. */
  const cafeFixed = query.has('cafe');

  function newBasket(customer = { name: '', userId: null }) {
    return {
      lines: [],
      customer,
      /** The Idempotency-Key and the request it was made for. */
      key: null,
      keyedBody: null,
      /** A coupon to redeem with the order: `{code, label}`, or null. */
      coupon: null,
      /** `unknown` while an attempt's outcome is not known: the basket cannot change then. */
      outcome: 'none',
    };
  }

  // MARK: - The menu

  async function loadMenu() {
    const headers = state.etag ? { 'If-None-Match': state.etag } : {};
    const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/menu`, { headers, timeoutMs: 5000 });
    if (answer.status === 304) return false;
    state.etag = answer.headers.get('ETag');
    state.menu = answer.body;
    state.items = new Map();
    for (const category of state.menu.categories) category.items.forEach((item) => state.items.set(item.id, item));
    renderMenu();
    renderBasket();
    return true;
  }

  /** Keeps the menu current: a sold-out mark shows within a second (304s cost nothing). */
  async function followMenu() {
    for (;;) {
      await Canteen.sleep(500);
      await connection.whenOnline();
      try {
        await loadMenu();
      } catch (error) {
        if (error instanceof ApiError && error.isTokenProblem) { Canteen.tokenRefused(error); return; }
        if (error instanceof ApiError) await Canteen.sleep(5000);
      }
    }
  }

  function allergenList(item) {
    if (!item.allergens.length) return null;
    return el('ul', { class: 'allergens', 'aria-label': t('web.kiosk.allergens') },
      item.allergens.map((code) => el('li', { dataset: { allergen: code }, text: t(`allergen.${code}`) || code })));
  }

  function renderMenu() {
    const structure = state.menu.categories.map((category) => `${category.id}:${category.name}:` + category.items
      .map((item) => `${item.id}/${item.name}/${item.price.formatted}`).join(',')).join('|');
    if (structure !== state.structure) {
      state.structure = structure;
      const nav = ui().querySelector('.categories');
      nav.replaceChildren(...state.menu.categories.map((category) => el('button', {
        type: 'button', class: 'category-link', text: category.name,
        onclick: () => document.getElementById(`category-${category.id}`).scrollIntoView({ behavior: 'smooth', block: 'start' }),
      })));
      ui().querySelector('.menu').replaceChildren(...state.menu.categories.map((category) => el('section', {
        class: 'category', id: `category-${category.id}`, 'aria-labelledby': `category-title-${category.id}`,
      },
      el('h2', { id: `category-title-${category.id}`, text: category.name }),
      el('div', { class: 'items' }, category.items.map((item) => el('button', {
        type: 'button', class: 'item', dataset: { itemId: item.id }, onclick: () => openItem(item.id),
      },
      el('span', { class: 'item-name', text: item.name }),
      el('span', { class: 'item-price', text: item.price.formatted }),
      item.description ? el('span', { class: 'item-description', text: item.description }) : null,
      allergenList(item),
      el('span', { class: 'item-left' }),
      el('span', { class: 'item-unavailable' })))))));
    }
    for (const button of ui().querySelectorAll('.item')) {
      const item = state.items.get(button.dataset.itemId);
      button.dataset.available = String(item.available);
      button.disabled = !item.available;
      button.setAttribute('aria-disabled', String(!item.available));
      button.classList.toggle('is-unavailable', !item.available);
      button.querySelector('.item-unavailable').textContent = item.available ? '' : (item.unavailableLabel || t('label.unavailable'));
      // A limited dish says how many are left today ("3 left").
      const left = item.available && item.remaining != null ? t('web.kiosk.items_left', { count: item.remaining }) : '';
      button.querySelector('.item-left').textContent = left;
      if (item.remaining != null) button.dataset.remaining = String(item.remaining); else delete button.dataset.remaining;
    }
  }

  // MARK: - Choosing an item

  let editing = null;

  function openItem(itemId) {
    const item = state.items.get(itemId);
    if (!item || !item.available || state.basket.outcome === 'unknown') return;
    const dialog = document.getElementById('item-dialog');
    editing = Canteen.itemChoice(dialog, item);
    dialog.returnValue = '';
    dialog.showModal();
  }

  function addEditedItem() {
    if (!editing || !editing.check()) return;
    state.basket.lines.push({ key: Canteen.randomKey('l'), ...editing.line() });
    editing = null;
    basketChanged();
  }

  // MARK: - The basket

  function basketChanged() {
    state.basket.key = null;
    state.basket.keyedBody = null;
    renderBasket();
  }

  function units() {
    return state.basket.lines.reduce((sum, line) => sum + line.quantity, 0);
  }

  function unavailableLines() {
    return state.basket.lines.filter((line) => !state.items.get(line.itemId)?.available);
  }

  function renderBasket() {
    if (!state.menu) return;
    const basket = state.basket;
    const locked = basket.outcome === 'unknown';
    const list = ui().querySelector('.basket-lines');
    list.replaceChildren(...basket.lines.map((line) => {
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
            onclick: () => removeLine(line.key) })));
    }));
    const couponLine = ui().querySelector('.coupon-line');
    couponLine.hidden = !basket.coupon;
    if (basket.coupon) {
      couponLine.replaceChildren(
        el('span', { class: 'coupon-label', text: t('web.kiosk.coupon', { label: basket.coupon.label }) }),
        el('button', { type: 'button', class: 'remove', disabled: locked, text: t('web.kiosk.remove'),
          onclick: () => removeCoupon() }));
    }
    const subtotal = basket.lines.reduce((sum, line) => sum + line.unit * line.quantity, 0);
    document.querySelectorAll('.subtotal-amount').forEach((amount) => { amount.textContent = Canteen.money(subtotal, state.menu.currency); });
    ui().querySelector('.basket-empty').hidden = basket.lines.length > 0;
    ui().querySelector('.basket-count').textContent = String(units());
    const customer = ui().querySelector('.customer-line');
    customer.hidden = !basket.customer.name;
    customer.textContent = basket.customer.name ? t('web.kiosk.ordering_for', { name: basket.customer.name }) : '';
    const problems = unavailableLines();
    const hint = ui().querySelector('.basket-hint');
    hint.hidden = problems.length === 0;
    hint.textContent = problems.length ? t('web.kiosk.remove_unavailable') : '';
    ui().querySelector('.checkout-button').disabled = basket.lines.length === 0 || problems.length > 0;
    if (document.getElementById('checkout-dialog').open) renderSummary();
  }

  function removeLine(key) {
    if (state.basket.outcome === 'unknown') return;
    state.basket.lines = state.basket.lines.filter((line) => line.key !== key);
    basketChanged();
    if (!state.basket.lines.length) document.getElementById('checkout-dialog').close();
  }

  // MARK: - Checkout

  async function loadWindows() {
    try {
      // The basket's items: windows the kitchen cannot meet for this order are offered as busy.
      const items = [...new Set(state.basket.lines.map((line) => line.itemId))];
      const search = items.length ? `?items=${items.map(encodeURIComponent).join(',')}` : '';
      const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/pickup-windows${search}`);
      state.windows = answer.body;
    } catch (error) {
      if (error instanceof ApiError && error.isTokenProblem) { Canteen.tokenRefused(error); return; }
      if (error instanceof ApiError) state.windows = { windows: [], capacityUnit: 'orders', error: error.message };
    }
    renderWindows();
  }

  function renderWindows() {
    const list = document.querySelector('#checkout-dialog .window-list');
    if (!state.windows) { list.replaceChildren(el('p', { class: 'loading', text: t('web.common.loading') })); return; }
    const need = state.windows.capacityUnit === 'items' ? units() : 1;
    const locked = state.basket.outcome === 'unknown';
    const windows = state.windows.windows;
    const busy = (window) => window.unavailableReason === 'kitchen_busy';
    const open = (window) => window.remaining >= need && !busy(window);
    if (state.choice !== 'asap' && !windows.some((window) => window.start === state.choice && open(window))) state.choice = 'asap';
    const choices = [{ start: 'asap', label: t('label.asap'), remaining: windows.some(open) ? null : 0 }, ...windows];
    list.replaceChildren(...choices.map((window) => {
      const full = window.remaining !== null && (window.remaining < need || busy(window));
      const detail = window.start === 'asap' ? (full ? t('web.kiosk.window_full') : '')
        : busy(window) ? t('web.kiosk.kitchen_busy')
          : full ? t('web.kiosk.window_full') : t('web.kiosk.window_left', { count: window.remaining });
      return el('label', { class: `window${full ? ' is-full' : ''}`, dataset: { windowStart: window.start } },
        el('input', { type: 'radio', name: 'window', value: window.start, disabled: full || locked,
          checked: state.choice === window.start, onchange: () => { state.choice = window.start; } }),
        el('span', { class: 'window-label', text: window.label }),
        el('span', { class: 'window-left', text: detail }));
    }));
    if (state.windows.error) list.append(el('p', { class: 'line-problem', text: state.windows.error }));
  }

  function renderSummary() {
    const summary = document.querySelector('#checkout-dialog .summary');
    summary.replaceChildren(...state.basket.lines.map((line) => el('li', {},
      el('span', { text: `${line.quantity}× ${line.name}${line.optionNames.length ? ` (${line.optionNames.join(', ')})` : ''}` }),
      el('span', { text: Canteen.money(line.unit * line.quantity, state.menu.currency) }))));
  }

  function openCheckout() {
    if (!state.basket.lines.length || unavailableLines().length) return;
    const dialog = document.getElementById('checkout-dialog');
    dialog.querySelector('input[name=customer]').value = state.basket.customer.name;
    hideError();
    renderSummary();
    renderWindows();
    setLocked(state.basket.outcome === 'unknown');
    dialog.showModal();
    loadWindows();
    if (!state.basket.customer.name) dialog.querySelector('input[name=customer]').focus();
  }

  function showError(message, actions = []) {
    const box = document.querySelector('#checkout-dialog .checkout-error');
    box.hidden = false;
    box.querySelector('.checkout-error-text').textContent = message;
    box.querySelector('.checkout-error-actions').replaceChildren(...actions.map((action) => el('button', {
      type: 'button', class: action.primary ? 'primary' : 'secondary', text: action.label, onclick: action.run,
    })));
    box.scrollIntoView({ block: 'nearest' });
  }

  function hideError() {
    document.querySelector('#checkout-dialog .checkout-error').hidden = true;
  }

  function setLocked(locked) {
    const dialog = document.getElementById('checkout-dialog');
    dialog.querySelector('input[name=customer]').disabled = locked;
    dialog.querySelector('.back-button').disabled = locked;
    if (locked) dialog.querySelectorAll('.window input').forEach((input) => { input.disabled = true; });
    else renderWindows();
    renderBasket();
  }

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
      customer: { name: state.basket.customer.name },
    };
    if (state.basket.customer.userId) body.customer.userId = state.basket.customer.userId;
    if (state.basket.coupon) body.coupon = state.basket.coupon.code;
    return body;
  }

  /**
   * Places the order. The key is made once for this basket's request and reused on every retry;
   * while an attempt's outcome is unknown the basket is locked, so a retry is always the same
   * request and the server answers it with the one order it placed.
   */
  async function place() {
    if (state.placing) return;
    const dialog = document.getElementById('checkout-dialog');
    const basket = state.basket;
    if (basket.outcome !== 'unknown') {
      const name = dialog.querySelector('input[name=customer]').value.trim();
      if (!name) {
        showError(t('web.kiosk.name_needed'));
        dialog.querySelector('input[name=customer]').focus();
        return;
      }
      basket.customer.name = name;
      const body = JSON.stringify(orderBody());
      if (basket.keyedBody !== body) {
        basket.key = Canteen.randomKey('kiosk-');
        basket.keyedBody = body;
      }
    }
    state.placing = true;
    hideError();
    const button = dialog.querySelector('.place-button');
    button.disabled = true;
    button.textContent = t('web.kiosk.placing');
    let attempt = 0;
    try {
      for (;;) {
        attempt += 1;
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
            setLocked(true);
            if (attempt < 4) {
              showError(t('web.kiosk.retrying'));
              await Canteen.sleep(1000 * 2 ** (attempt - 1));
              await connection.whenOnline();
              continue;
            }
            showError(t('web.kiosk.outcome_unknown'), [
              { label: t('web.kiosk.try_again'), primary: true, run: () => place() },
              { label: t('web.kiosk.start_over'), run: () => startOver() },
            ]);
            return;
          }
          basket.outcome = 'none';
          setLocked(false);
          refused(error);
          return;
        }
      }
    } finally {
      state.placing = false;
      button.disabled = false;
      button.textContent = t('web.kiosk.place');
    }
  }

  /** An answer that says no: what happened, in the reader's language, and a way forward. */
  function refused(error) {
    if (error.isTokenProblem && error.status === 401) {
      document.getElementById('checkout-dialog').close();
      Canteen.tokenRefused(error);
      return;
    }
    const lineIndex = /^lines\[(\d+)\]/.exec(error.field || '');
    const line = lineIndex ? state.basket.lines[Number(lineIndex[1])] : null;
    switch (error.code) {
      case 'pickup_window_full':
      case 'pickup_window_unavailable':
      case 'kitchen_busy':
        showError(error.message, [{ label: t('web.kiosk.pick_another_window'), primary: true, run: async () => {
          hideError();
          await loadWindows();
          document.querySelector('#checkout-dialog .window input:not(:disabled)')?.focus();
        } }]);
        loadWindows();
        break;
      case 'item_unavailable':
      case 'not_enough_left':
      case 'unknown_item':
      case 'unknown_option':
      case 'invalid_selection':
        loadMenu().catch(() => {});
        showError(error.message, line ? [{ label: t('web.kiosk.remove_item', { item: line.name }), primary: true, run: () => {
          removeLine(line.key);
          hideError();
        } }] : [{ label: t('web.kiosk.back'), run: () => document.getElementById('checkout-dialog').close() }]);
        break;
      case 'coupon_used_up':
      case 'coupon_expired':
      case 'coupon_not_yet_valid':
      case 'coupon_revoked':
      case 'coupon_not_applicable':
      case 'invalid_coupon_code':
      case 'unknown_coupon':
        showError(error.message, [{ label: t('web.kiosk.remove_coupon'), primary: true, run: () => {
          removeCoupon();
          hideError();
        } }]);
        break;
      case 'cafe_closed':
        showError(error.message, [{ label: t('web.kiosk.back'), run: () => document.getElementById('checkout-dialog').close() }]);
        loadWindows();
        break;
      default:
        showError(error.message);
    }
  }

  function placed(order) {
    document.getElementById('checkout-dialog').close();
    const done = document.getElementById('done');
    done.querySelector('.done-title').textContent = t('web.kiosk.thanks', { name: order.customer.name });
    const number = done.querySelector('.done-number');
    number.textContent = Canteen.wholeNumber.format(order.number);
    number.dataset.orderNumber = String(order.number);
    number.dataset.orderId = order.id;
    done.querySelector('.done-pickup').textContent = t('web.kiosk.pickup_at', { window: order.pickup.label });
    const ready = done.querySelector('.done-ready');
    ready.textContent = order.readyAt ? t('web.kiosk.ready_at', { time: Canteen.timeOfDay(state.cafe.timeZone).format(new Date(order.readyAt)) }) : '';
    ready.dataset.readyAt = order.readyAt || '';
    done.querySelector('.done-total').textContent = `${t('label.total')}: ${order.total.formatted}`;
    ui().hidden = true;
    done.hidden = false;
    done.querySelector('.new-order').focus();
    state.basket = newBasket();
    state.choice = 'asap';
    renderBasket();
    clearTimeout(placed.timer);
    placed.timer = setTimeout(showMenu, 60000);
  }

  function showMenu() {
    clearTimeout(placed.timer);
    document.getElementById('done').hidden = true;
    ui().hidden = false;
  }

  function startOver() {
    document.getElementById('checkout-dialog').close();
    state.basket = newBasket();
    notify(t('web.kiosk.ask_counter'), { kind: 'error', timeoutMs: 15000 });
    renderBasket();
  }

  // MARK: - Who is ordering

  async function resolveCafeFor(userId, currentCafeId) {
    const body = currentCafeId ? { currentCafeId } : undefined;
    const answer = await request('POST', `/v1/users/${encodeURIComponent(userId)}/cafe`, { body });
    return answer.body.cafe;
  }

  /**
   * A badge was tapped at this kiosk: `userId` is who it belongs to, `name` what to call them.
   * The order is placed for them; with an empty basket the kiosk opens the café resolved for
   * them (their preference, else the nearest), unless the URL fixed the café.
   */
  async function badgeTapped({ userId, name = '' } = {}) {
    if (!userId || state.basket.outcome === 'unknown') return false;
    state.basket.customer = { name: name || state.basket.customer.name, userId };
    renderBasket();
    notify(name ? t('web.kiosk.hello', { name }) : t('web.kiosk.badge_read'));
    if (!state.basket.lines.length && !cafeFixed) {
      try {
        const cafe = await resolveCafeFor(userId, state.cafe?.id);
        if (cafe && state.cafe && cafe.id !== state.cafe.id) await openCafe(cafe);
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) Canteen.tokenRefused(error);
      }
    }
    return true;
  }
  // MARK: - Coupons and taps

  /** Applies a coupon the server said can be redeemed now (`POST /v1/coupons/check`'s answer). */
  function applyCoupon(coupon) {
    if (state.basket.outcome === 'unknown') return false;
    state.basket.coupon = { code: coupon.code, label: coupon.label };
    basketChanged();
    notify(t('web.kiosk.coupon_applied', { label: coupon.label }));
    return true;
  }

  function removeCoupon() {
    if (state.basket.outcome === 'unknown') return;
    state.basket.coupon = null;
    basketChanged();
  }

  /** A coupon code from a tag or a link: checked with the server, applied when it can be redeemed here now. */
  async function couponEntered(code) {
    try {
      const answer = await request('POST', '/v1/coupons/check', { body: { code, cafeId: state.cafe?.id } });
      couponChecked(answer.body);
    } catch (error) {
      if (error instanceof ApiError && !error.isTokenProblem) notify(error.message, { kind: 'error' });
    }
  }

  function couponChecked(coupon) {
    if (coupon.usable) applyCoupon(coupon);
    else notify(t(`error.${coupon.reason}`) || t('web.kiosk.coupon_unusable'), { kind: 'error' });
  }

  /**
   * Follows the taps this kiosk's NFC agent reports (same token): a badge names who is ordering, a
   * coupon tag is applied. A page that opens starts from now; taps older than a minute never arrive.
   */
  async function followTaps() {
    let cursor = null;
    for (;;) {
      try {
        const path = cursor === null ? '/v1/taps' : `/v1/taps?after=${cursor}&wait=25`;
        const answer = await request('GET', path, { timeoutMs: 35000 });
        cursor = answer.body.cursor;
        for (const tap of answer.body.taps) {
          if (tap.kind === 'badge' && tap.user) {
            await badgeTapped({ userId: tap.user.userId, name: tap.user.displayName || '' });
          } else if (tap.kind === 'coupon' && tap.coupon) {
            couponChecked(tap.coupon);
          } else if (tap.error) {
            notify(t(`error.${tap.error.code}`) || tap.error.message, { kind: 'error' });
          }
        }
      } catch (error) {
        if (error instanceof ApiError && error.isTokenProblem) return; // not a kiosk token (ops): no agent
        await Canteen.sleep(2000);
        await connection.whenOnline();
      }
    }
  }

  window.CanteenKiosk = { badgeTapped, couponEntered };

  async function openCafe(cafe) {
    state.cafe = cafe;
    state.etag = null;
    state.structure = '';
    state.windows = null;
    query.set('cafe', cafe.id);
    history.replaceState(history.state, '', `${location.pathname}?${query}`);
    ui().querySelector('.cafe-name').textContent = cafe.name;
    ui().querySelector('.cafe-state').textContent = cafe.openNow ? t('label.open') : t('label.closed');
    document.title = `${cafe.name} · ${t('web.kiosk.title')}`;
    state.basket.lines = [];
    await loadMenu();
  }

  // MARK: - Start

  document.addEventListener('DOMContentLoaded', async () => {
    state.basket = newBasket();
    const user = query.get('user');
    const { cafe } = await Canteen.session({
      roles: ['kiosk', 'ops'],
      resolveCafe: async () => {
        if (!user) return null;
        try { return (await resolveCafeFor(user)).id; } catch { return null; }
      },
    });
    if (user) state.basket.customer.userId = user;
    ui().hidden = false;
    for (;;) {
      try {
        await openCafe(cafe);
        ui().dataset.loaded = 'true';
        break;
      } catch (error) {
        if (error instanceof ApiError && error.isTokenProblem) { Canteen.tokenRefused(error); return; }
        await Canteen.sleep(2000);
        await connection.whenOnline();
      }
    }
    const itemDialog = document.getElementById('item-dialog');
    itemDialog.addEventListener('close', () => { if (itemDialog.returnValue === 'add') addEditedItem(); });
    itemDialog.querySelector('.quantity-row .minus').addEventListener('click', () => {
      editing.quantity = Math.max(1, editing.quantity - 1);
      itemDialog.querySelector('.quantity').textContent = String(editing.quantity);
    });
    itemDialog.querySelector('.quantity-row .plus').addEventListener('click', () => {
      editing.quantity = Math.min(99, editing.quantity + 1);
      itemDialog.querySelector('.quantity').textContent = String(editing.quantity);
    });
    const checkout = document.getElementById('checkout-dialog');
    checkout.querySelector('form').addEventListener('submit', (event) => { event.preventDefault(); place(); });
    checkout.querySelector('.back-button').addEventListener('click', () => checkout.close());
    checkout.addEventListener('cancel', (event) => { if (state.placing || state.basket.outcome === 'unknown') event.preventDefault(); });
    checkout.querySelector('input[name=customer]').addEventListener('input', (event) => {
      state.basket.customer.name = event.target.value.trim();
    });
    ui().querySelector('.checkout-button').addEventListener('click', openCheckout);
    ui().querySelector('.basket-toggle').addEventListener('click', () => ui().classList.toggle('show-basket'));
    document.querySelector('#done .new-order').addEventListener('click', showMenu);
    setInterval(() => { if (checkout.open && !state.placing) loadWindows(); }, 15000);
    followMenu();
    followTaps();
    if (query.get('coupon')) couponEntered(query.get('coupon'));
  });
})();
