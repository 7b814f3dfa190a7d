// The kitchen display (`/kds?cafe=ID`, `&station=S` for one station, `&view=expo` for whole
// orders): ticket cards from the feed's event stream, tap to bump, recall, cancel, all-day counts
// and sold-out marks. Every ticket card carries `data-ticket-id` and `data-status` (the API's).
// Kitchen timing: a held ticket is shown greyed with its fire time (a tap fires it now) until
// the server fires it; ages count from when a ticket fired and turn amber and red against its
// own prep time; the header shows each station's live median; new, changed and cancelled
// tickets each have their own sound, and a cancelled ticket flashes before it leaves.
'use strict';

(() => {
  const { t, el, query, storage, connection, request, ApiError, NetworkError, notify, sound } = Canteen;

  const NEXT = { held: 'new', new: 'preparing', preparing: 'ready', ready: 'picked_up' };
  const STAGE = { held: -1, new: 0, preparing: 1, ready: 2, picked_up: 3 };
  const OPEN = new Set(['held', 'new', 'preparing', 'ready']);
  const DONE_KEPT = 20;
  /** How long a cancelled ticket flashes before it leaves the screen. */
  const CANCELLED_FLASH_MS = 4000;
  /** How often the stations' live times are read again. */
  const TIMES_EVERY_MS = 30000;

  const state = {
    cafe: null,
    station: query.get('station') || null,
    view: query.get('view') === 'expo' ? 'expo' : 'tickets',
    /** Every ticket known: id → the ticket as the API last showed it. */
    tickets: new Map(),
    /** What is on screen: key (ticket id, or order id in expo) → {element, signature}. */
    shown: new Map(),
    /** Moves the server has not accepted yet, oldest first (kept across a reload). */
    pending: [],
    /** Moves made here and accepted, newest last, for "recall last": each an array of moves. */
    history: [],
    /** Ids of tickets picked up lately, newest first. */
    done: [],
    /** Ticket id → until when it is highlighted as new. */
    arrivals: new Map(),
    stations: new Set(),
    menu: null,
    warningMs: 5 * 60000,
    lateMs: 8 * 60000,
    /** A ticket with a prep time is late this long after its prep time has passed. */
    allowanceMs: 3 * 60000,
    /** Cancelled tickets still shown (flashing): id → until when. */
    leaving: new Map(),
    /** The stations' live times (`GET …/kitchen`), or null before the first answer. */
    times: null,
  };
  let feed = null;
  const screen = () => document.getElementById('kds');
  const grid = () => screen().querySelector('.tickets');

  // MARK: - Pending moves (kept in the browser so that none is silently lost)

  function loadPending() {
    try {
      const stored = JSON.parse(storage.get('pending') || '[]');
      return Array.isArray(stored) ? stored.filter((move) => move && move.ticketId && move.to) : [];
    } catch { return []; }
  }
  function savePending() {
    storage.set('pending', state.pending.length ? JSON.stringify(state.pending) : null);
  }
  function pendingFor(ticketId) {
    return state.pending.filter((move) => move.ticketId === ticketId);
  }
  /** The status a ticket will have once its pending moves are sent. */
  function intended(ticket) {
    const moves = pendingFor(ticket.id);
    return moves.length ? moves[moves.length - 1].to : ticket.status;
  }

  // MARK: - The feed

  function remember(ticket) {
    const previous = state.tickets.get(ticket.id);
    if (previous && previous.sequence >= ticket.sequence) return null;
    state.tickets.set(ticket.id, ticket);
    state.stations.add(ticket.station);
    if (ticket.status === 'picked_up') {
      state.done = [ticket.id, ...state.done.filter((id) => id !== ticket.id)];
      for (const id of state.done.splice(DONE_KEPT)) {
        if (!pendingFor(id).length) state.tickets.delete(id);
      }
    } else if (previous && previous.status === 'picked_up') {
      state.done = state.done.filter((id) => id !== ticket.id);
    }
    return { previous, ticket };
  }

  function onReset(tickets) {
    const started = performance.now();
    for (const [id, ticket] of state.tickets) {
      if (OPEN.has(ticket.status)) state.tickets.delete(id);
    }
    tickets.forEach(remember);
    settle();
    render();
    screen().dataset.loaded = 'true';
    // What the benchmark reads: the script's share, and when the cards were first painted.
    performance.measure('canteen:render', { start: started, end: performance.now() });
    requestAnimationFrame(() => setTimeout(() => performance.mark('canteen:tickets-painted'), 0));
  }

  function onChanges(tickets) {
    const started = performance.now();
    const arrived = [];
    const changed = [];
    const cancelled = [];
    for (const ticket of tickets) {
      const change = remember(ticket);
      // A ticket fired by its timer reaches its station as new tickets do.
      if (change && ticket.status === 'new' && (!change.previous || change.previous.status === 'held')) arrived.push(ticket.id);
      else if (change && change.previous && ticket.status !== 'cancelled' && isStepBack(change.previous, ticket)) changed.push(ticket.id);
      if (change && ticket.status === 'cancelled' && !pendingFor(ticket.id).length) {
        if (change.previous && OPEN.has(change.previous.status) && !movedHere(ticket.id)) {
          cancelled.push(ticket.id);
          state.leaving.set(ticket.id, Date.now() + CANCELLED_FLASH_MS);
        } else {
          state.tickets.delete(ticket.id);
        }
      }
    }
    settle();
    if (arrived.length) announce(arrived);
    else if (cancelled.length) sound.play('cancelled');
    else if (changed.length) sound.play('changed');
    render();
    performance.measure('canteen:changes', { start: started, end: performance.now() });
  }

  /** A move back (a recall) made elsewhere: the ticket needs the kitchen's attention again. */
  function isStepBack(previous, ticket) {
    return (STAGE[ticket.status] ?? 9) < (STAGE[previous.status] ?? 9) && ticket.status !== 'held' && !movedHere(ticket.id);
  }
  /** Whether this screen made the ticket's latest move (its own moves make no sound). */
  function movedHere(ticketId) {
    return state.pending.some((move) => move.ticketId === ticketId) || state.movedHere?.has(ticketId);
  }

  /** Drops pending moves the server already shows as made (an answer lost on the way). */
  function settle() {
    const before = state.pending.length;
    state.pending = state.pending.filter((move) => state.tickets.get(move.ticketId)?.status !== move.to || move.sending);
    if (state.pending.length !== before) savePending();
  }

  function announce(ids) {
    const until = Date.now() + 10000;
    ids.forEach((id) => state.arrivals.set(id, until));
    sound.play('new');
    // An opacity animation runs on the compositor: no layout, nothing taken from the main thread.
    document.querySelector('.flash-overlay').animate([{ opacity: 1 }, { opacity: 0 }], { duration: 1200, easing: 'ease-out' });
  }

  // MARK: - Moving tickets

  /** Queues moves (one tap's worth) and sends them now if the server can be reached. */
  function move(moves, { record = true } = {}) {
    const group = Canteen.randomKey('g');
    for (const step of moves) {
      const ticket = state.tickets.get(step.ticketId);
      state.pending.push({ ...step, group, record, number: ticket ? ticket.orderNumber : '' });
    }
    savePending();
    render();
    flush();
  }

  let flushing = null;
  /** Sends pending moves in order; runs once at a time. */
  function flush() {
    if (!flushing) flushing = sendPending().finally(() => { flushing = null; });
    return flushing;
  }

  async function sendPending() {
    const accepted = new Map();
    while (state.pending.length && connection.online) {
      const step = state.pending[0];
      const current = state.tickets.get(step.ticketId);
      if (current && current.status === step.to) {
        state.pending.shift();
        continue;
      }
      if (current && current.status !== step.from) {
        state.pending.shift();
        refuse(step, current.status);
        continue;
      }
      step.sending = true;
      try {
        const answer = await request('POST', `/v1/tickets/${encodeURIComponent(step.ticketId)}/status`,
          { body: { status: step.to }, timeoutMs: 8000 });
        state.pending.shift();
        state.movedHere = state.movedHere || new Set();
        state.movedHere.add(step.ticketId);
        setTimeout(() => state.movedHere.delete(step.ticketId), 5000);
        remember(answer.body);
        if (step.record && step.to !== 'cancelled') {
          if (!accepted.has(step.group)) accepted.set(step.group, []);
          accepted.get(step.group).push({ ticketId: step.ticketId, from: step.from, to: step.to });
        }
      } catch (error) {
        step.sending = false;
        if (error instanceof NetworkError) break; // kept; sent after the feed has caught up
        state.pending.shift();
        if (error instanceof ApiError && error.isTokenProblem) {
          savePending();
          feed.stop();
          Canteen.tokenRefused(error);
          return;
        }
        if (error instanceof ApiError && error.status === 409) {
          const status = await reread(step.ticketId);
          if (status === step.to) continue;
          refuse(step, status);
        } else {
          refuse(step, null, error.message);
        }
      } finally {
        savePending();
        render();
      }
    }
    for (const moves of accepted.values()) state.history.push(moves);
    state.history.splice(0, Math.max(0, state.history.length - 50));
    render();
  }

  /** A ticket's status read again from the feed after a refused move. */
  async function reread(ticketId) {
    const ticket = state.tickets.get(ticketId);
    if (!ticket) return null;
    let after = Math.max(0, ticket.sequence - 1);
    for (let page = 0; page < 5; page += 1) {
      const parameters = new URLSearchParams({ after: String(after), station: ticket.station });
      try {
        const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/tickets?${parameters}`);
        answer.body.tickets.forEach(remember);
        if (answer.body.tickets.length < 500 || answer.body.cursor === String(after)) break;
        after = Number(answer.body.cursor);
      } catch { break; }
    }
    return state.tickets.get(ticketId)?.status ?? null;
  }

  /** Says, until dismissed, that a move was not made and why. */
  function refuse(step, current, message = '') {
    const text = current
      ? t('web.kds.move_refused', { number: step.number, state: t(`state.${step.to}`), current: t(`state.${current}`) })
      : t('web.kds.move_failed', { number: step.number, state: t(`state.${step.to}`), reason: message });
    notify(text, { kind: 'error', timeoutMs: 0 });
  }

  /** The moves one tap makes: a ticket one step on; in expo, an order's least advanced tickets. */
  function bumpMoves(key) {
    if (state.view === 'expo') {
      const open = orderTickets(key).filter((ticket) => OPEN.has(intended(ticket)));
      // Expo moves the order's fired tickets; held ones are fired only when nothing else is left.
      const fired = open.filter((ticket) => intended(ticket) !== 'held');
      const tickets = fired.length ? fired : open;
      if (!tickets.length) return [];
      const lowest = Math.min(...tickets.map((ticket) => STAGE[intended(ticket)]));
      return tickets.filter((ticket) => STAGE[intended(ticket)] === lowest)
        .map((ticket) => ({ ticketId: ticket.id, from: intended(ticket), to: NEXT[intended(ticket)] }));
    }
    const ticket = state.tickets.get(key);
    if (!ticket || !NEXT[intended(ticket)]) return [];
    return [{ ticketId: ticket.id, from: intended(ticket), to: NEXT[intended(ticket)] }];
  }

  const lastTap = new Map();
  function bump(key) {
    // Two taps in quick succession are one bump: a ticket must never skip a step by accident.
    const at = Date.now();
    if (at - (lastTap.get(key) || 0) < 700) return;
    lastTap.set(key, at);
    const moves = bumpMoves(key);
    if (moves.length) move(moves);
  }

  function recallLast() {
    const moves = state.history.pop();
    if (!moves) return;
    const back = moves.slice().reverse()
      .filter((step) => intended(state.tickets.get(step.ticketId) || { id: step.ticketId, status: null }) === step.to)
      .map((step) => ({ ticketId: step.ticketId, from: step.to, to: step.from }));
    if (!back.length) {
      notify(t('web.kds.recall_stale'), { kind: 'error' });
      render();
      return;
    }
    move(back, { record: false });
  }

  function recallDone(ticketId) {
    const ticket = state.tickets.get(ticketId);
    if (!ticket || intended(ticket) !== 'picked_up') return;
    move([{ ticketId, from: 'picked_up', to: 'ready' }], { record: false });
  }

  function confirmCancel(key) {
    const dialog = document.getElementById('cancel-dialog');
    const tickets = state.view === 'expo' ? orderTickets(key) : [state.tickets.get(key)];
    const open = tickets.filter((ticket) => ticket && OPEN.has(intended(ticket)));
    if (!open.length) return;
    dialog.querySelector('.dialog-title').textContent = state.view === 'expo'
      ? t('web.kds.cancel_order_title', { number: open[0].orderNumber })
      : t('web.kds.cancel_title', { number: open[0].orderNumber, station: open[0].station });
    dialog.returnValue = '';
    dialog.onclose = () => {
      if (dialog.returnValue !== 'confirm') return;
      move(open.map((ticket) => ({ ticketId: ticket.id, from: intended(ticket), to: 'cancelled' })));
    };
    dialog.showModal();
  }

  // MARK: - What is shown

  function visibleTickets() {
    return [...state.tickets.values()]
      .filter((ticket) => OPEN.has(ticket.status) || (pendingFor(ticket.id).length && OPEN.has(intended(ticket)))
        || state.leaving.has(ticket.id))
      .filter((ticket) => state.view === 'expo' || !state.station || ticket.station === state.station)
      .sort((a, b) => arrivedAt(a).localeCompare(arrivedAt(b)) || a.orderNumber - b.orderNumber || a.station.localeCompare(b.station));
  }

  /** When a ticket reached (or reaches, while held) its station: what the screen orders by. */
  function arrivedAt(ticket) {
    return ticket.firedAt || ticket.fireAt || ticket.createdAt;
  }


  /** A held ticket's fire time, shown instead of its age. */
  function heldNote(ticket) {
    if (ticket.status !== 'held' || !ticket.fireAt) return null;
    return el('p', { class: 'held-note', dataset: { fireAt: ticket.fireAt } },
      t('web.kds.fires_at', { time: Canteen.timeOfDay(state.cafe.timeZone).format(new Date(ticket.fireAt)) }));
  }

  /** The age element of a ticket or order: counts from when it fired; amber and red against its prep time. */
  function ageElement(since, prepSeconds) {
    const dataset = { since };
    if (prepSeconds != null) dataset.prepMs = String(prepSeconds * 1000);
    return el('span', { class: 'age', dataset });
  }

  function orderTickets(orderId) {
    return [...state.tickets.values()]
      .filter((ticket) => ticket.orderId === orderId && (ticket.status !== 'cancelled' || state.leaving.has(ticket.id)))
      .sort((a, b) => a.station.localeCompare(b.station));
  }

  const number = new Intl.NumberFormat(Canteen.locale, { useGrouping: false });

  function linesList(lines) {
    return el('ul', { class: 'lines' }, lines.map((line) => el('li', { class: 'line' },
      el('span', { class: 'qty', text: `${number.format(line.quantity)}×` }),
      el('span', { class: 'item', text: line.name }),
      line.options.length ? el('ul', { class: 'options' }, line.options.map((option) => el('li', { text: option }))) : null,
      line.note ? el('p', { class: 'note', text: line.note }) : null)));
  }

  function pendingNote(ticket) {
    const moves = pendingFor(ticket.id);
    if (!moves.length) return null;
    return el('p', { class: 'pending-note' },
      t(connection.online ? 'web.kds.sending' : 'web.kds.pending', { state: t(`state.${moves[moves.length - 1].to}`) }));
  }

  function bumpLabel(status) {
    if (status === 'held') return t('web.kds.fire_now');
    return status && NEXT[status] ? t(`web.kds.bump_${status}`) : '';
  }

  function ticketCard(ticket) {
    const target = intended(ticket);
    const pending = pendingFor(ticket.id).length > 0;
    return el('article', {
      class: `ticket status-${target}${pending ? ' is-pending' : ''}${state.leaving.has(ticket.id) ? ' is-cancelled' : ''}`,
      tabindex: '0',
      dataset: { ticketId: ticket.id, status: ticket.status, key: ticket.id },
      'aria-label': t('web.kds.ticket_label', { number: ticket.orderNumber, name: ticket.customerName, state: t(`state.${target}`) }),
    },
    el('header', { class: 'ticket-head' },
      el('span', { class: 'number', text: number.format(ticket.orderNumber) }),
      el('span', { class: 'name', text: ticket.customerName }),
      target === 'held' ? null : ageElement(ticket.firedAt || ticket.createdAt, ticket.prepSeconds)),
    el('div', { class: 'ticket-meta' },
      el('span', { class: 'station', text: ticket.station }),
      el('span', { class: 'pickup', title: t('label.pickup'), text: ticket.pickup.label }),
      el('span', { class: 'state', text: t(`state.${state.leaving.has(ticket.id) ? 'cancelled' : target}`) })),
    heldNote(ticket),
    linesList(ticket.lines),
    pendingNote(ticket),
    el('footer', { class: 'ticket-foot' },
      NEXT[target] ? el('button', { type: 'button', class: 'bump', tabindex: '-1', text: bumpLabel(target) }) : null,
      el('button', { type: 'button', class: 'cancel', tabindex: '-1', 'aria-label': t('web.kds.cancel'), title: t('web.kds.cancel'), text: '✕' })));
  }

  function orderCard(order) {
    const statuses = order.tickets.map(intended);
    const status = Canteen.orderStatus(statuses);
    const fired = statuses.filter((s) => OPEN.has(s) && s !== 'held');
    const lowest = Math.min(...(fired.length ? fired : statuses.filter((s) => OPEN.has(s))).map((s) => STAGE[s]));
    const nextLabel = bumpLabel(Object.keys(STAGE).find((s) => STAGE[s] === lowest));
    const preps = order.tickets.map((ticket) => ticket.prepSeconds).filter((prep) => prep != null);
    const first = order.tickets[0];
    return el('article', {
      class: `ticket order status-${status}${order.tickets.some((ticket) => pendingFor(ticket.id).length) ? ' is-pending' : ''}`
        + (order.tickets.every((ticket) => state.leaving.has(ticket.id)) ? ' is-cancelled' : ''),
      tabindex: '0',
      dataset: { orderId: order.id, orderStatus: status, key: order.id },
      'aria-label': t('web.kds.ticket_label', { number: first.orderNumber, name: first.customerName, state: t(`state.${status}`) }),
    },
    el('header', { class: 'ticket-head' },
      el('span', { class: 'number', text: number.format(first.orderNumber) }),
      el('span', { class: 'name', text: first.customerName }),
      ageElement(order.createdAt, preps.length ? Math.max(...preps) : null)),
    el('div', { class: 'ticket-meta' },
      el('span', { class: 'pickup', text: first.pickup.label }),
      el('span', { class: 'state', text: t(`state.${status}`) })),
    order.tickets.map((ticket) => el('section', {
      class: `station-ticket status-${intended(ticket)}`,
      dataset: { ticketId: ticket.id, status: ticket.status },
    },
    el('h3', {}, el('span', { class: 'station', text: ticket.station }), el('span', { class: 'state', text: t(`state.${intended(ticket)}`) })),
    heldNote(ticket),
    linesList(ticket.lines),
    pendingNote(ticket))),
    el('footer', { class: 'ticket-foot' },
      nextLabel ? el('button', { type: 'button', class: 'bump', tabindex: '-1', text: nextLabel }) : null,
      el('button', { type: 'button', class: 'cancel', tabindex: '-1', 'aria-label': t('web.kds.cancel'), title: t('web.kds.cancel'), text: '✕' })));
  }

  function items() {
    const tickets = visibleTickets();
    if (state.view !== 'expo') {
      return tickets.map((ticket) => ({
        key: ticket.id,
        signature: `${ticket.sequence}|${intended(ticket)}|${pendingFor(ticket.id).length}|${connection.online}|${state.leaving.has(ticket.id)}`,
        build: () => ticketCard(ticket),
      }));
    }
    const orders = new Map();
    for (const ticket of tickets) {
      if (!orders.has(ticket.orderId)) orders.set(ticket.orderId, { id: ticket.orderId, createdAt: ticket.createdAt });
    }
    return [...orders.values()].map((order) => {
      order.tickets = orderTickets(order.id).filter((ticket) => ticket.status !== 'picked_up' || pendingFor(ticket.id).length);
      if (!order.tickets.length) return null;
      return {
        key: order.id,
        signature: order.tickets.map((ticket) => `${ticket.id}:${ticket.sequence}:${intended(ticket)}`).join(',') + `|${connection.online}`
          + `|${order.tickets.filter((ticket) => state.leaving.has(ticket.id)).length}`,
        build: () => orderCard(order),
      };
    }).filter(Boolean);
  }

  function render() {
    if (!state.cafe) return;
    const container = grid();
    const wanted = new Set();
    let index = 0;
    for (const item of items()) {
      wanted.add(item.key);
      let entry = state.shown.get(item.key);
      if (!entry || entry.signature !== item.signature) {
        const element = item.build();
        if (entry) {
          const focused = entry.element.contains(document.activeElement);
          entry.element.replaceWith(element);
          if (focused) element.focus();
        }
        entry = { element, signature: item.signature };
        state.shown.set(item.key, entry);
      }
      const current = container.children[index];
      if (current !== entry.element) container.insertBefore(entry.element, current || null);
      index += 1;
    }
    for (const [key, entry] of state.shown) {
      if (!wanted.has(key)) {
        entry.element.remove();
        state.shown.delete(key);
      }
    }
    screen().querySelector('.empty').hidden = index > 0;
    tick();
    renderAllDay();
    renderDone();
    renderViews();
    screen().querySelector('.recall-button').disabled = state.history.length === 0;
  }

  /** Ages, their colours, and the end of arrival highlights: once a second. */
  function tick() {
    const now = Canteen.now();
    for (const { element } of state.shown.values()) {
      const age = element.querySelector('.age');
      if (!age) continue; // a held ticket shows its fire time instead
      const elapsed = now - Date.parse(age.dataset.since);
      const text = Canteen.duration(elapsed);
      // Only what changed is written: a busy screen re-lays out nothing it does not have to.
      if (age.textContent !== text) age.textContent = text;
      // Against the ticket's own target when it has a prep time: amber past it, red past it plus the allowance.
      const prepMs = age.dataset.prepMs ? Number(age.dataset.prepMs) : null;
      const warningMs = prepMs == null ? state.warningMs : prepMs;
      const lateMs = prepMs == null ? state.lateMs : prepMs + state.allowanceMs;
      const warning = elapsed >= warningMs && elapsed < lateMs;
      const late = elapsed >= lateMs;
      if (element.classList.contains('age-warning') !== warning) element.classList.toggle('age-warning', warning);
      if (element.classList.contains('age-late') !== late) element.classList.toggle('age-late', late);
    }
    const clock = Date.now();
    for (const { element } of state.shown.values()) {
      const ids = element.dataset.ticketId ? [element.dataset.ticketId]
        : [...element.querySelectorAll('[data-ticket-id]')].map((section) => section.dataset.ticketId);
      const arrival = ids.some((id) => (state.arrivals.get(id) || 0) > clock);
      if (element.classList.contains('is-arrival') !== arrival) element.classList.toggle('is-arrival', arrival);
    }
    for (const [id, until] of state.arrivals) if (until <= clock) state.arrivals.delete(id);
    let left = false;
    for (const [id, until] of state.leaving) {
      if (until > clock) continue;
      state.leaving.delete(id);
      state.tickets.delete(id);
      left = true;
    }
    if (left) render();
  }

  // MARK: - The stations' live times

  async function loadTimes() {
    try {
      const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/kitchen`);
      state.times = answer.body;
    } catch { return; }
    renderTimes();
  }

  /** Each station's median fired → ready of the last hour (the shown station's alone, when one is chosen). */
  function renderTimes() {
    const element = screen().querySelector('.station-times');
    if (!element || !state.times) return;
    const stations = state.times.stations.filter((station) => !state.station || station.id === state.station)
      .filter((station) => station.finishedLastHour > 0 || station.openTickets > 0 || station.heldTickets > 0 || state.station);
    element.replaceChildren(...stations.map((station) => el('span', {
      class: 'station-time', dataset: { station: station.id, medianSeconds: String(station.medianSeconds ?? '') },
      text: station.medianSeconds == null
        ? t('web.kds.median_none', { station: station.id })
        : t('web.kds.median', { station: station.id, time: Canteen.duration(station.medianSeconds * 1000) }),
    })));
  }

  function renderAllDay() {
    const counts = new Map();
    for (const ticket of visibleTickets()) {
      if (ticket.status !== 'new' && ticket.status !== 'preparing') continue;
      for (const line of ticket.lines) {
        const entry = counts.get(line.itemId) || { name: line.name, count: 0 };
        entry.count += line.quantity;
        counts.set(line.itemId, entry);
      }
    }
    const list = screen().querySelector('.allday-list');
    const sorted = [...counts.entries()].sort((a, b) => b[1].count - a[1].count || a[1].name.localeCompare(b[1].name));
    list.replaceChildren(...sorted.map(([itemId, entry]) => el('li', { dataset: { countItem: itemId } },
      el('span', { class: 'count', text: number.format(entry.count) }), el('span', { class: 'name', text: entry.name }))));
    screen().querySelector('.allday-empty').hidden = sorted.length > 0;
  }

  function renderDone() {
    screen().querySelector('.done-count').textContent = number.format(state.done.length);
    const dialog = document.getElementById('done-dialog');
    const list = dialog.querySelector('.done-list');
    const tickets = state.done.map((id) => state.tickets.get(id)).filter(Boolean);
    list.replaceChildren(...tickets.map((ticket) => el('li', { dataset: { doneTicketId: ticket.id } },
      el('span', { class: 'number', text: number.format(ticket.orderNumber) }),
      el('span', { class: 'name', text: ticket.customerName }),
      el('span', { class: 'station', text: ticket.station }),
      el('button', { type: 'button', class: 'recall', disabled: intended(ticket) !== 'picked_up',
        text: t('web.kds.recall'), onclick: (event) => { event.preventDefault(); recallDone(ticket.id); } }))));
    dialog.querySelector('.done-empty').hidden = tickets.length > 0;
  }

  function renderViews() {
    const nav = screen().querySelector('.views');
    const stations = [...state.stations].sort();
    const views = [{ id: 'all', label: t('web.kds.all_stations') },
      ...stations.map((station) => ({ id: `station:${station}`, label: station })),
      { id: 'expo', label: t('web.kds.expo') }];
    const current = state.view === 'expo' ? 'expo' : state.station ? `station:${state.station}` : 'all';
    const signature = views.map((view) => view.id).join(',') + `|${current}`;
    if (nav.dataset.signature === signature) return;
    nav.dataset.signature = signature;
    nav.replaceChildren(...views.map((view) => el('button', {
      type: 'button', class: 'view', 'aria-pressed': String(view.id === current), dataset: { view: view.id },
      text: view.label, onclick: () => chooseView(view.id),
    })));
  }

  function chooseView(id) {
    const station = id.startsWith('station:') ? id.slice(8) : null;
    const view = id === 'expo' ? 'expo' : 'tickets';
    const feedChanges = (station || null) !== (state.view === 'expo' ? null : state.station);
    state.view = view;
    state.station = view === 'expo' ? null : station;
    if (state.station) query.set('station', state.station); else query.delete('station');
    if (view === 'expo') query.set('view', 'expo'); else query.delete('view');
    history.replaceState(history.state, '', `${location.pathname}?${query}`);
    state.shown.forEach((entry) => entry.element.remove());
    state.shown.clear();
    state.history = [];
    if (feedChanges) feed.start(state.station);
    render();
    renderTimes();
  }

  // MARK: - Sold out from the line

  async function loadMenu() {
    const answer = await request('GET', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/menu`);
    state.menu = answer.body;
    for (const category of state.menu.categories) category.items.forEach((item) => state.stations.add(item.station));
    renderViews();
    renderSoldOut();
  }

  async function changeAvailability(itemId, body, row) {
    row.querySelectorAll('button, input').forEach((control) => { control.disabled = true; });
    try {
      const answer = await request('PATCH', `/v1/cafes/${encodeURIComponent(state.cafe.id)}/menu/items/${encodeURIComponent(itemId)}`, { body });
      state.menu = answer.body;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) { Canteen.tokenRefused(error); return; }
      notify(error instanceof ApiError ? error.message : t('web.common.unreachable'), { kind: 'error', timeoutMs: 0 });
    }
    renderSoldOut();
  }

  function renderSoldOut() {
    const dialog = document.getElementById('soldout-dialog');
    if (!state.menu) return;
    const time = Canteen.timeOfDay(state.cafe.timeZone);
    const rows = [];
    for (const category of state.menu.categories) {
      for (const item of category.items) {
        if (state.station && item.station !== state.station) continue;
        const soldOut = item.unavailableReason === 'sold_out';
        const status = soldOut
          ? (item.soldOutUntil ? t('web.soldout.until', { time: time.format(new Date(item.soldOutUntil)) }) : t('label.sold_out'))
          : item.available ? t('label.available') : item.unavailableLabel || t('label.unavailable');
        const row = el('li', { class: `soldout-row${soldOut ? ' is-soldout' : ''}`, dataset: { soldoutItem: item.id, soldOut: String(soldOut) } },
          el('span', { class: 'name', text: item.name }),
          el('span', { class: 'state', text: status }));
        const actions = el('div', { class: 'row-actions' });
        if (soldOut) {
          actions.append(el('button', { type: 'button', class: 'primary', dataset: { action: 'back' }, text: t('web.soldout.back'),
            onclick: () => changeAvailability(item.id, { soldOut: false }, row) }));
        } else {
          const until = el('input', { type: 'time', 'aria-label': t('web.soldout.until_time'), value: '' });
          actions.append(
            el('button', { type: 'button', class: 'danger', dataset: { action: 'today' }, text: t('web.soldout.today'),
              onclick: () => {
                const end = Canteen.nextZonedTime(state.cafe.timeZone, 0, 0);
                changeAvailability(item.id, { soldOut: true, soldOutUntil: end.toISOString() }, row);
              } }),
            el('label', { class: 'until' }, el('span', { text: t('web.soldout.until_time') }), until),
            el('button', { type: 'button', class: 'secondary', dataset: { action: 'until' }, text: t('web.soldout.set'),
              onclick: () => {
                const match = /^(\d{2}):(\d{2})$/.exec(until.value);
                if (!match) { until.focus(); return; }
                const end = Canteen.nextZonedTime(state.cafe.timeZone, Number(match[1]), Number(match[2]));
                changeAvailability(item.id, { soldOut: true, soldOutUntil: end.toISOString() }, row);
              } }));
        }
        row.append(actions);
        rows.push(row);
      }
    }
    dialog.querySelector('.soldout-list').replaceChildren(...rows);
  }

  // MARK: - Touch and keyboard

  function wireControls() {
    const container = grid();
    container.addEventListener('click', (event) => {
      const card = event.target.closest('.ticket');
      if (!card) return;
      if (event.target.closest('.cancel')) confirmCancel(card.dataset.key);
      else bump(card.dataset.key);
    });
    container.addEventListener('keydown', (event) => {
      const card = event.target.closest('.ticket');
      if (!card) return;
      const cards = [...container.querySelectorAll(':scope > .ticket')];
      const index = cards.indexOf(card);
      const forward = document.documentElement.dir === 'rtl' ? 'ArrowLeft' : 'ArrowRight';
      const backward = forward === 'ArrowLeft' ? 'ArrowRight' : 'ArrowLeft';
      const step = { [forward]: 1, ArrowDown: 1, [backward]: -1, ArrowUp: -1 }[event.key];
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        bump(card.dataset.key);
      } else if (event.key === 'Delete' || event.key === 'Backspace') {
        event.preventDefault();
        confirmCancel(card.dataset.key);
      } else if (step) {
        event.preventDefault();
        cards[Math.max(0, Math.min(cards.length - 1, index + step))]?.focus();
      }
    });
    document.addEventListener('keydown', (event) => {
      if (event.target.closest('input, textarea, select, dialog')) return;
      if (event.key === 'u' || (event.key === 'z' && (event.ctrlKey || event.metaKey))) { event.preventDefault(); recallLast(); }
    });
    const ui = screen();
    ui.querySelector('.recall-button').addEventListener('click', recallLast);
    ui.querySelector('.done-button').addEventListener('click', () => { renderDone(); document.getElementById('done-dialog').showModal(); });
    ui.querySelector('.soldout-button').addEventListener('click', () => {
      renderSoldOut();
      document.getElementById('soldout-dialog').showModal();
      loadMenu().catch(() => {});
    });
    ui.querySelector('.allday-button').addEventListener('click', (event) => {
      const open = ui.classList.toggle('show-allday');
      event.currentTarget.setAttribute('aria-expanded', String(open));
    });
    connection.onChange(() => render());
  }

  // MARK: - Start

  document.addEventListener('DOMContentLoaded', async () => {
    state.pending = loadPending();
    const { cafe } = await Canteen.session({ roles: ['kitchen', 'ops'] });
    state.cafe = cafe;
    const display = cafe.display || {};
    state.warningMs = (display.ticketWarningMinutes || 5) * 60000;
    state.lateMs = (display.ticketLateMinutes || 8) * 60000;
    state.allowanceMs = (display.ticketAllowanceMinutes || 3) * 60000;
    const ui = screen();
    ui.hidden = false;
    ui.querySelector('.cafe-name').textContent = cafe.name;
    document.title = `${cafe.name} · ${t('web.kds.title')}`;
    Canteen.startClock(ui.querySelector('.clock'), cafe.timeZone);
    wireControls();
    render();
    loadMenu().catch(() => {});
    feed = new Canteen.TicketFeed({
      cafeId: cafe.id, station: state.view === 'expo' ? null : state.station, onReset, onChanges, onCaughtUp: flush,
    });
    feed.start();
    setInterval(tick, 1000);
    loadTimes();
    setInterval(loadTimes, TIMES_EVERY_MS);
  });
})();
