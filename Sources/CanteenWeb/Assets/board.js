// The pickup board (`/board?cafe=ID`): the public screen over the counter. Two columns,
// preparing and ready; each order shows its number and its customer's first name only, as an
// element with `data-order-number` and `data-status` (`preparing` or `ready`, its column). A
// chime sounds when an order becomes ready; ready orders leave when picked up or after the
// café's `display.boardReadyMinutes`.
'use strict';

(() => {
  const { t, el, sound } = Canteen;

  const state = {
    cafe: null,
    /** Order id → {id, number, name, createdAt, tickets: Map(ticket id → ticket)}. */
    orders: new Map(),
    shown: new Map(),
    readyMs: 10 * 60000,
    chimes: 0,
    /** Order id → until when it is highlighted as just ready. */
    fresh: new Map(),
  };
  const number = new Intl.NumberFormat(Canteen.locale, { useGrouping: false });

  /** The first word of the name: a public screen shows no surname. */
  function firstName(name) {
    return Array.from((name || '').trim().split(/\s+/u)[0] || '').slice(0, 16).join('');
  }

  function remember(ticket) {
    let order = state.orders.get(ticket.orderId);
    if (!order) {
      order = { id: ticket.orderId, number: ticket.orderNumber, name: firstName(ticket.customerName),
        createdAt: ticket.createdAt, tickets: new Map() };
      state.orders.set(ticket.orderId, order);
    }
    const previous = order.tickets.get(ticket.id);
    if (previous && previous.sequence >= ticket.sequence) return;
    order.tickets.set(ticket.id, { status: ticket.status, updatedAt: ticket.updatedAt, sequence: ticket.sequence });
  }

  function status(order) {
    return Canteen.orderStatus([...order.tickets.values()].map((ticket) => ticket.status));
  }

  /** When the order became ready: its last live ticket's move to ready. */
  function readyAt(order) {
    return Math.max(...[...order.tickets.values()].filter((ticket) => ticket.status !== 'cancelled')
      .map((ticket) => Date.parse(ticket.updatedAt)));
  }

  function onReset(tickets) {
    state.orders.clear();
    tickets.forEach(remember);
    render();
    document.getElementById('board').dataset.loaded = 'true';
  }

  function onChanges(tickets) {
    const before = new Map([...state.orders].map(([id, order]) => [id, status(order)]));
    tickets.forEach(remember);
    let ready = 0;
    for (const [id, order] of state.orders) {
      const now = status(order);
      if (now === 'ready' && before.get(id) !== 'ready') {
        ready += 1;
        state.fresh.set(id, Date.now() + 15000);
      }
      if (now === 'picked_up' || now === 'cancelled') state.orders.delete(id);
    }
    if (ready) {
      state.chimes += ready;
      document.body.dataset.chimes = String(state.chimes);
      sound.play('ready');
    }
    render();
  }

  function card(order, column) {
    return el('li', {
      class: 'board-order', dataset: { orderNumber: String(order.number), status: column, orderStatus: status(order) },
    }, el('span', { class: 'number', text: number.format(order.number) }),
    el('span', { class: 'name', text: order.name }));
  }

  function render() {
    if (!state.cafe) return;
    const now = Canteen.now();
    const columns = { preparing: [], ready: [] };
    for (const order of state.orders.values()) {
      const current = status(order);
      if (current === 'placed' || current === 'preparing') columns.preparing.push(order);
      else if (current === 'ready' && readyAt(order) + state.readyMs > now) columns.ready.push(order);
    }
    columns.preparing.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.number - b.number);
    columns.ready.sort((a, b) => readyAt(b) - readyAt(a) || b.number - a.number);
    const wanted = new Set();
    for (const [column, orders] of Object.entries(columns)) {
      const list = document.querySelector(`.orders[data-column="${column}"]`);
      orders.forEach((order, index) => {
        const key = `${order.id}`;
        wanted.add(key);
        let entry = state.shown.get(key);
        const signature = `${column}|${order.number}|${order.name}|${status(order)}`;
        if (!entry || entry.signature !== signature) {
          const element = card(order, column);
          if (entry) entry.element.remove();
          entry = { element, signature };
          state.shown.set(key, entry);
        }
        entry.element.classList.toggle('is-fresh', (state.fresh.get(order.id) || 0) > Date.now());
        if (list.children[index] !== entry.element) list.insertBefore(entry.element, list.children[index] || null);
      });
    }
    for (const [key, entry] of state.shown) {
      if (!wanted.has(key)) {
        entry.element.remove();
        state.shown.delete(key);
      }
    }
    for (const [id, until] of state.fresh) if (until <= Date.now()) state.fresh.delete(id);
  }

  document.addEventListener('DOMContentLoaded', async () => {
    document.body.dataset.chimes = '0';
    const { cafe } = await Canteen.session({ roles: ['kitchen', 'kiosk', 'ops'] });
    if (!document.documentElement.dataset.apiLanguage) {
      // Opened without `?cafe=`: load again so the page speaks the café's language.
      location.reload();
      return;
    }
    state.cafe = cafe;
    state.readyMs = ((cafe.display && cafe.display.boardReadyMinutes) || 10) * 60000;
    const board = document.getElementById('board');
    board.hidden = false;
    board.querySelector('.cafe-name').textContent = cafe.name;
    document.title = `${cafe.name} · ${t('web.board.title')}`;
    Canteen.startClock(board.querySelector('.clock'), cafe.timeZone);
    new Canteen.TicketFeed({ cafeId: cafe.id, onReset, onChanges }).start();
    setInterval(render, 1000);
  });
})();
