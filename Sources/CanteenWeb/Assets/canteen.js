// What the kitchen display, the kiosk, the pickup board and /app share: their strings, the token, API
// calls, the connection banner, the server's clock, sounds, the ticket feed and the item dialog. Plain JavaScript
// served by `canteen serve`; no build step, nothing loaded from elsewhere.
'use strict';

const Canteen = (() => {
  const root = document.documentElement;
  /** `kds`, `kiosk` or `board`. */
  const page = root.dataset.page;
  /** The reader's formatting locale as the server negotiated it (`es-UY`). */
  const locale = root.dataset.locale || root.lang || 'en';
  /** What to send as Accept-Language ('' lets the browser send its own). */
  const apiLanguage = root.dataset.apiLanguage || '';
  /** `same-origin` on pages that sign people in with a session cookie (`/app`); the others send none. */
  const credentials = root.dataset.credentials || 'omit';
  const strings = JSON.parse(document.getElementById('canteen-strings').textContent || '{}');
  const query = new URLSearchParams(location.search);

  // MARK: - Strings

  /** The string `key` in the page's language with `{name}` placeholders filled. */
  function t(key, params = {}) {
    const template = strings[key];
    if (template === undefined) return '';
    return template.replace(/\{([A-Za-z0-9_]+)\}/g, (_, name) => (name in params ? String(params[name]) : '…'));
  }

  /** A new element: `el('li', {class: 'x', dataset: {id: 1}, text: '…'}, child, …)`. */
  function el(tag, attributes = {}, ...children) {
    const element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') element.textContent = value;
      else if (name === 'class') element.className = value;
      else if (name === 'dataset') Object.assign(element.dataset, value);
      else if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
      else element.setAttribute(name, value === true ? '' : value);
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined && child !== false) {
        element.append(child instanceof Node ? child : document.createTextNode(String(child)));
      }
    }
    return element;
  }

  // MARK: - Stored settings

  const storage = {
    get(key) {
      try { return localStorage.getItem(`canteen.${page}.${key}`); } catch { return null; }
    },
    set(key, value) {
      try {
        if (value === null || value === undefined) localStorage.removeItem(`canteen.${page}.${key}`);
        else localStorage.setItem(`canteen.${page}.${key}`, value);
      } catch { /* private mode: kept for this visit only */ }
    },
  };

  /**
   * A token provisioned in the URL fragment (`#token=…`, e.g. from a QR code) is stored and
   * removed from the address bar. A fragment never reaches the server or its logs.
   */
  function takeTokenFromFragment() {
    if (!location.hash.includes('token=')) return;
    const fragment = new URLSearchParams(location.hash.slice(1));
    const token = (fragment.get('token') || '').trim();
    if (token) storage.set('token', token);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(history.state, '', location.pathname + location.search + (rest ? `#${rest}` : ''));
  }

  // MARK: - The server's clock

  /** True once the screen runs with its token and café (until the token is refused). */
  let inSession = false;
  /** The café's time zone once known: every time the screen shows is the café's. */
  let cafeTimeZone;

  let clockOffset = 0;
  /** Now on the server's clock (tablets' clocks drift; ticket ages are the server's). */
  function now() { return Date.now() + clockOffset; }
  function noteServerDate(header) {
    const server = header ? Date.parse(header) : NaN;
    if (Number.isNaN(server)) return;
    // The header has whole seconds: only trust an offset larger than that.
    const offset = server + 500 - Date.now();
    clockOffset = Math.abs(offset) > 1500 ? offset : 0;
  }

  // MARK: - The connection

  /**
   * Whether the server can be reached. Any failed request, or a missed heartbeat, shows the
   * `role="alert"` banner at once; while offline the server is probed with backoff, and every
   * waiter resumes as soon as it answers.
   */
  const connection = (() => {
    let online = true;
    let lastContact = Date.now();
    let lostAt = null;
    let attempt = 0;
    let probeTimer = null;
    const waiters = [];
    const listeners = [];
    const banner = () => document.getElementById('connection-banner');

    function render() {
      const element = banner();
      if (!element) return;
      element.hidden = online;
      root.dataset.connection = online ? 'online' : 'offline';
      if (!online) {
        const since = new Intl.DateTimeFormat(locale, { timeStyle: 'medium', timeZone: cafeTimeZone }).format(lostAt);
        element.querySelector('.banner-text').textContent = t('web.offline.banner', { time: since });
      }
    }

    function reached() {
      lastContact = Date.now();
      if (online) return;
      online = true;
      attempt = 0;
      clearTimeout(probeTimer);
      render();
      waiters.splice(0).forEach((resolve) => resolve());
      listeners.forEach((listener) => listener(true));
    }

    function lost() {
      if (!online) return;
      online = false;
      lostAt = new Date();
      render();
      listeners.forEach((listener) => listener(false));
      scheduleProbe();
    }

    function scheduleProbe() {
      clearTimeout(probeTimer);
      const delay = Math.min(4000, 500 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
      attempt += 1;
      probeTimer = setTimeout(probe, delay);
    }

    async function probe() {
      if (online) return;
      try {
        await request('GET', '/healthz', { timeoutMs: 2500, anonymous: true });
      } catch {
        scheduleProbe();
      }
    }

    // An open stream can hang on a network that silently drops packets: a heartbeat every 2 s,
    // sent only when nothing else was heard, finds that within the 5 s the screen promises.
    // With a token it asks what the token is, so a revoked token is noticed within seconds too.
    async function heartbeat() {
      const token = inSession && storage.get('token');
      try {
        await request('GET', token ? '/v1/token' : '/healthz', { timeoutMs: 2500, anonymous: !token });
      } catch (error) {
        if (error instanceof ApiError && error.status === 401) tokenRefused(error);
      }
    }
    setInterval(() => { if (online && Date.now() - lastContact >= 2000) heartbeat(); }, 1000);
    window.addEventListener('offline', lost);
    window.addEventListener('online', () => { if (!online) probe(); });

    return {
      get online() { return online; },
      reached,
      lost,
      /** Asks the server at once whether it is there (a stream just dropped). */
      check() { if (online) heartbeat(); },
      /** Resolves once the server answers again (at once when it does now). */
      whenOnline() { return online ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)); },
      /** `listener(isOnline)` on every change. */
      onChange(listener) { listeners.push(listener); },
    };
  })();

  // MARK: - API calls

  /** The server answered with an error: `{"error": {"code", "message", "field"}}`. */
  class ApiError extends Error {
    constructor(status, code, message, field, problems = []) {
      super(message);
      this.status = status;
      this.code = code;
      this.field = field;
      /** Every problem of a document that had several: `[{code, field, message}]`. */
      this.problems = problems;
    }
    /** The token was not accepted (wrong, revoked) or may not do this. */
    get isTokenProblem() { return this.status === 401 || this.status === 403; }
  }

  /** The server could not be reached, or did not answer in time. */
  class NetworkError extends Error {}

  /**
   * One API request; resolves `{status, headers, body}` (body null on 304), rejects with
   * `ApiError` for an answer with an error status, `NetworkError` when no answer came, or the
   * caller's abort.
   */
  async function request(method, path, { body, headers = {}, timeoutMs = 10000, signal, anonymous = false } = {}) {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutMs);
    const forward = () => controller.abort();
    signal?.addEventListener('abort', forward);
    const init = { method, headers: { ...headers }, cache: 'no-store', credentials, signal: controller.signal };
    const token = storage.get('token');
    if (token && !anonymous) init.headers.Authorization = `Bearer ${token}`;
    if (apiLanguage) init.headers['Accept-Language'] = apiLanguage;
    if (body !== undefined) {
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    try {
      let response;
      try {
        response = await fetch(path, init);
      } catch (error) {
        if (signal?.aborted) throw error;
        connection.lost();
        throw new NetworkError(timedOut ? 'timeout' : String(error));
      }
      noteServerDate(response.headers.get('Date'));
      let json = null;
      if (response.status !== 304 && response.status !== 204) {
        const text = await response.text().catch((error) => {
          if (signal?.aborted) throw error;
          connection.lost();
          throw new NetworkError(String(error));
        });
        try { json = text ? JSON.parse(text) : null; } catch { json = null; }
      }
      if (!response.ok && response.status !== 304) {
        const error = json && json.error;
        if (!error && response.status >= 500) {
          // Not Canteen's answer (a proxy in front of it): the server is not reachable.
          connection.lost();
          throw new NetworkError(`HTTP ${response.status}`);
        }
        connection.reached();
        throw new ApiError(response.status, error ? error.code : `http_${response.status}`,
          error ? error.message : response.statusText, error ? error.field : null, (error && error.problems) || []);
      }
      connection.reached();
      return { status: response.status, headers: response.headers, body: json };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    }
  }

  function sleep(ms, signal) {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => { clearTimeout(timer); resolve(); }, { once: true });
    });
  }

  /** A random key (crypto.randomUUID needs a secure context; a tablet on plain http is not). */
  function randomKey(prefix) {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return prefix + Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
  }

  // MARK: - Notices

  /** A message at the foot of the screen for a few seconds (never the connection banner). */
  function notify(message, { kind = 'info', timeoutMs = 6000, action } = {}) {
    const area = document.getElementById('notices');
    if (!area) return;
    const notice = el('div', { class: `notice notice-${kind}` }, el('span', { text: message }));
    if (action) {
      notice.append(el('button', { type: 'button', class: 'notice-action', text: action.label,
        onclick: () => { notice.remove(); action.run(); } }));
    }
    notice.append(el('button', { type: 'button', class: 'notice-close', 'aria-label': t('web.common.dismiss'),
      text: '×', onclick: () => notice.remove() }));
    area.append(notice);
    if (timeoutMs) setTimeout(() => notice.remove(), timeoutMs);
  }

  // MARK: - Sound

  /**
   * Alerts: a sound (once the browser allows it, after the first tap or key) and a counter on
   * `<body data-alerts>` that tests and other scripts can watch, plus a `canteen:alert` event.
   */
  const sound = (() => {
    let context = null;
    let alerts = 0;
    function unlock() {
      try {
        if (!context) context = new (window.AudioContext || window.webkitAudioContext)();
        if (context.state === 'suspended') context.resume();
      } catch { context = null; }
      // After the tap has finished: hiding the hint now would move the buttons under the finger.
      setTimeout(update, 400);
    }
    function update() {
      const enabled = !!context && context.state !== 'suspended';
      root.dataset.sound = enabled ? 'on' : 'off';
      document.querySelectorAll('.sound-hint').forEach((hint) => { hint.hidden = enabled; });
      if (enabled) {
        document.removeEventListener('pointerdown', unlock, true);
        document.removeEventListener('keydown', unlock, true);
      }
    }
    document.addEventListener('pointerdown', unlock, true);
    document.addEventListener('keydown', unlock, true);
    document.addEventListener('DOMContentLoaded', update);

    /** Short tones, one pattern per kind: `new` rises, `ready` is a three-note chime, `changed`
     *  repeats one note, `cancelled` falls. */
    const NOTES = {
      new: [880, 1174.66], ready: [659.25, 783.99, 1046.5], changed: [987.77, 987.77], cancelled: [783.99, 587.33, 392],
    };
    function play(kind) {
      alerts += 1;
      document.body.dataset.alerts = String(alerts);
      window.dispatchEvent(new CustomEvent('canteen:alert', { detail: { kind, count: alerts } }));
      if (!context || context.state !== 'running') return false;
      const notes = NOTES[kind] || NOTES.new;
      const start = context.currentTime + 0.01;
      notes.forEach((frequency, index) => {
        const oscillator = context.createOscillator();
        const gain = context.createGain();
        oscillator.type = 'sine';
        oscillator.frequency.value = frequency;
        const at = start + index * 0.18;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.4, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.35);
        oscillator.connect(gain).connect(context.destination);
        oscillator.start(at);
        oscillator.stop(at + 0.4);
      });
      return true;
    }
    return { play, unlock, get alerts() { return alerts; } };
  })();

  // MARK: - Token and café

  /**
   * Shows the setup screen: a token field and, once a token works, the cafés it serves.
   * `reason` explains why it is shown (`refused`, `forbidden`, or nothing on first start).
   */
  function showSetup({ reason = null, detail = '' } = {}) {
    const setup = document.getElementById('setup');
    document.querySelectorAll('[data-screen]').forEach((screen) => { screen.hidden = screen !== setup; });
    setup.hidden = false;
    const message = setup.querySelector('.setup-message');
    message.textContent = reason ? t(`web.token.${reason}`) + (detail ? ` ${detail}` : '') : t('web.token.intro');
    message.dataset.reason = reason || '';
    message.classList.toggle('is-error', !!reason);
    const input = setup.querySelector('input[name=token]');
    input.value = '';
    input.focus();
  }

  /**
   * Resolves the session once a token is stored and the café is known: `{cafe}` with the café
   * as the API shows it. Asks for what is missing; says clearly when the token is refused.
   * `resolveCafe(cafes)` may pick the café itself (the kiosk's user resolution). With `cafe: false`
   * (the console, which serves every café) no café is chosen: resolves `{token, cafes}` instead.
   */
  function session({ roles, resolveCafe, cafe: chooseCafe = true } = {}) {
    takeTokenFromFragment();
    const setup = document.getElementById('setup');
    const form = setup.querySelector('form');
    const picker = setup.querySelector('.cafe-picker');
    return new Promise((resolve) => {
      async function attempt() {
        if (!storage.get('token')) { showSetup(); return; }
        let cafes;
        let token;
        try {
          token = (await request('GET', '/v1/token', { timeoutMs: 8000 })).body;
          if (roles && !roles.includes(token.role)) {
            showSetup({ reason: 'wrong_role' });
            setup.querySelector('.setup-message').textContent = t('web.token.wrong_role', {
              role: t(`web.role.${token.role}`) || token.role,
              needed: roles.map((role) => t(`web.role.${role}`)).join(' / '),
            });
            return;
          }
          cafes = (await request('GET', '/v1/cafes', { timeoutMs: 8000 })).body.cafes;
        } catch (error) {
          if (error instanceof ApiError && error.status === 401) {
            storage.set('token', null);
            showSetup({ reason: 'refused' });
          } else if (error instanceof ApiError) {
            showSetup({ reason: 'forbidden', detail: error.message });
          } else {
            await connection.whenOnline();
            attempt();
          }
          return;
        }
        if (!chooseCafe) {
          inSession = true;
          picker.hidden = true;
          setup.hidden = true;
          resolve({ token, cafes });
          return;
        }
        const wanted = query.get('cafe') || (resolveCafe ? await resolveCafe(cafes) : null) || storage.get('cafe');
        let cafe = cafes.find((candidate) => candidate.id === wanted);
        if (wanted && !cafe && query.get('cafe')) {
          showSetup({ reason: 'wrong_cafe', detail: query.get('cafe') });
          return;
        }
        if (!cafe && cafes.length === 1) cafe = cafes[0];
        if (!cafe) {
          showSetup();
          setup.querySelector('.setup-message').textContent = t('web.setup.choose_cafe');
          picker.replaceChildren(...cafes.map((candidate) => el('button', {
            type: 'button', class: 'cafe-choice', dataset: { cafeId: candidate.id },
            onclick: () => { storage.set('cafe', candidate.id); finish(candidate); },
          }, el('strong', { text: candidate.name }), el('span', { text: candidate.id }))));
          picker.hidden = false;
          return;
        }
        finish(cafe);
      }
      function finish(cafe) {
        inSession = true;
        cafeTimeZone = cafe.timeZone;
        storage.set('cafe', cafe.id);
        picker.hidden = true;
        setup.hidden = true;
        if (query.get('cafe') !== cafe.id) {
          query.set('cafe', cafe.id);
          history.replaceState(history.state, '', `${location.pathname}?${query}`);
        }
        resolve({ cafe });
      }
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const token = new FormData(form).get('token').trim();
        if (!token) return;
        storage.set('token', token);
        attempt();
      });
      attempt();
    });
  }

  /**
   * The token stopped working mid-session (revoked, or it may not do this): forget it when the
   * server does not know it, and ask for another. Reloads once a new one is entered.
   */
  function tokenRefused(error) {
    if (!inSession) return;
    inSession = false;
    if (error.status === 401) storage.set('token', null);
    showSetup({ reason: error.status === 401 ? 'refused' : 'forbidden', detail: error.status === 401 ? '' : error.message });
    const form = document.querySelector('#setup form');
    form.addEventListener('submit', () => setTimeout(() => location.reload(), 0), { once: true });
  }

  /** Opens the setup screen on request (the ⚙ button): a new token or another café. */
  function openSettings() {
    storage.set('cafe', null);
    showSetup({ reason: null });
    const form = document.querySelector('#setup form');
    form.addEventListener('submit', () => {
      query.delete('cafe');
      history.replaceState(history.state, '', `${location.pathname}?${query}`);
      setTimeout(() => location.reload(), 0);
    }, { once: true });
  }

  // MARK: - The ticket feed

  /**
   * Follows a café's kitchen feed on its event stream (`GET …/tickets/events`): the open tickets
   * first (`snapshot`), then every change (`changes`), each event's id its cursor. After a dropped
   * stream the browser reconnects by itself and sends the last id (`Last-Event-ID`); a stream the
   * page opens anew (after an outage it noticed, a refused reconnection, another station) says
   * where it stands with `?after=`. Each change is handed over once, in order, and the first event
   * of every stream says the screen has caught up; nothing ever needs a refresh.
   *
   * An `EventSource` cannot send the token as a header. Just before it opens the stream, the
   * page puts the token in a cookie that only the stream's own path is sent (`SameSite=Strict`,
   * read by no other route), so the token never appears in an address, a proxy's log or a
   * `Referer`. The language goes as `?lang=`, for the same reason.
   */
  class TicketFeed {
    constructor({ cafeId, station = null, onReset, onChanges, onCaughtUp = () => {} }) {
      Object.assign(this, { cafeId, station, onReset, onChanges, onCaughtUp });
      this.cursor = null;
      this.source = null;
      this.running = false;
      this.generation = 0;
      this.failures = 0;
      connection.onChange((online) => {
        if (!online) this.close();
        else if (this.running && !this.source) this.open();
      });
    }

    get streamPath() { return `/v1/cafes/${encodeURIComponent(this.cafeId)}/tickets/events`; }

    query(extra = {}) {
      const parameters = new URLSearchParams();
      if (this.cursor !== null) parameters.set('after', this.cursor);
      if (this.station) parameters.set('station', this.station);
      for (const [name, value] of Object.entries(extra)) parameters.set(name, value);
      const text = parameters.toString();
      return text ? `?${text}` : '';
    }

    /** Starts (again, from the open tickets) with `station` (null for every station). */
    start(station = this.station) {
      this.station = station;
      this.cursor = null;
      this.running = true;
      this.open();
    }

    stop() {
      this.running = false;
      this.close();
    }

    close() {
      this.generation += 1;
      if (this.source) this.source.close();
      this.source = null;
    }

    /** The token, for the stream's path only (see above). */
    presentToken() {
      const token = encodeURIComponent(storage.get('token') || '');
      const secure = location.protocol === 'https:' ? '; Secure' : '';
      document.cookie = `canteen_token=${token}; Path=${this.streamPath}; Max-Age=86400; SameSite=Strict${secure}`;
    }

    open() {
      this.close();
      const generation = this.generation;
      this.presentToken();
      const source = new EventSource(this.streamPath + this.query(apiLanguage ? { lang: apiLanguage } : {}));
      this.source = source;
      const receive = (reset) => (event) => {
        if (generation !== this.generation) return;
        let page;
        try { page = JSON.parse(event.data); } catch { return; }
        this.cursor = page.cursor;
        this.failures = 0;
        connection.reached();
        if (reset) this.onReset(page.tickets);
        else if (page.tickets.length) this.onChanges(page.tickets);
        this.onCaughtUp();
      };
      source.addEventListener('snapshot', receive(true));
      source.addEventListener('changes', receive(false));
      source.addEventListener('open', () => { if (generation === this.generation) connection.reached(); });
      source.addEventListener('error', () => {
        if (generation !== this.generation) return;
        if (source.readyState === EventSource.CLOSED) {
          // Refused (an error answer, not a dropped connection): find out why, then open anew.
          this.source = null;
          this.recover(generation);
        } else {
          // The browser reconnects by itself; meanwhile, is the server there at all?
          connection.check();
        }
      });
    }

    /** Asks the cursor feed, which has the stream's rules, what is wrong; opens again after. */
    async recover(generation) {
      try {
        const feed = `/v1/cafes/${encodeURIComponent(this.cafeId)}/tickets${this.query()}`;
        await request('GET', feed, { timeoutMs: 15000 });
        // The feed answers: the stream was refused for a passing reason (the database, say).
        this.failures += 1;
        await sleep(Math.min(10000, 500 * 2 ** this.failures));
      } catch (error) {
        if (generation !== this.generation) return;
        if (error instanceof ApiError && error.isTokenProblem) {
          this.stop();
          tokenRefused(error);
          return;
        }
        if (error instanceof ApiError) {
          notify(error.message, { kind: 'error' });
          this.failures += 1;
          await sleep(Math.min(10000, 1000 * 2 ** this.failures));
        } else {
          await connection.whenOnline();
        }
      }
      if (generation === this.generation && this.running && !this.source) this.open();
    }
  }

  // MARK: - Choosing an item (the kiosk and /app)

  /** A currency's formatter for the reader and its minor-unit digits, made once per currency. */
  const moneyFormats = new Map();
  /** Minor units of `currency`, formatted for the reader (a basket's running total). */
  function money(amount, currency) {
    let format = moneyFormats.get(currency);
    if (!format) {
      const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
      format = { digits, formatter: new Intl.NumberFormat(locale, { style: 'currency', currency,
        minimumFractionDigits: digits, maximumFractionDigits: digits }) };
      moneyFormats.set(currency, format);
    }
    return format.formatter.format(amount / 10 ** format.digits);
  }

  /** What a modifier group asks for, in words ("Choose 1", "Up to 2", "Choose 1 to 3"). */
  function groupRule(group) {
    if (group.min === group.max) return t('web.kiosk.choose_exactly', { count: group.min });
    if (group.min === 0) return t('web.kiosk.choose_up_to', { max: group.max });
    return t('web.kiosk.choose_between', { min: group.min, max: group.max });
  }

  function optionLabel(option) {
    return option.priceDelta.amount ? `${option.name} (+${option.priceDelta.formatted})` : option.name;
  }

  /**
   * Fills the item dialog (`.item-title`, `.item-description`, `.item-allergens`, `.groups`,
   * `.quantity`, the note, `.selection-hint`, `.add-button`) for `item` and returns the choice
   * being made: `quantity` (the page's steppers change it), `check()` (every group's count within
   * its limits; says which one is not and enables the add button) and `line()` (the basket line).
   */
  function itemChoice(dialog, item) {
    const counts = new Map();
    const choice = { item, quantity: 1, check, line };
    const total = (groupId) => [...(counts.get(groupId) || new Map()).values()].reduce((sum, value) => sum + value, 0);

    function singleChoice(group, fieldset) {
      const choices = group.min === 0 ? [{ id: '', name: t('web.kiosk.none'), priceDelta: { amount: 0 } }, ...group.options] : group.options;
      choices.forEach((option) => fieldset.append(el('label', { class: 'choice', dataset: { optionId: option.id } },
        el('input', { type: 'radio', name: `group-${group.id}`, value: option.id, checked: option.id === '' && group.min === 0,
          onchange: () => { counts.set(group.id, option.id ? new Map([[option.id, 1]]) : new Map()); check(); } }),
        el('span', { text: optionLabel(option) }))));
    }

    function steppers(group, fieldset) {
      group.options.forEach((option) => {
        const count = el('output', { class: 'count', text: '0' });
        const change = (delta) => {
          const chosen = counts.get(group.id) || new Map();
          const next = (chosen.get(option.id) || 0) + delta;
          if (next < 0 || (delta > 0 && total(group.id) >= group.max)) return;
          chosen.set(option.id, next);
          counts.set(group.id, chosen);
          count.textContent = String(next);
          check();
        };
        fieldset.append(el('div', { class: 'stepper', dataset: { optionId: option.id } },
          el('span', { class: 'stepper-name', text: optionLabel(option) }),
          el('button', { type: 'button', class: 'step minus', 'aria-label': `${t('web.kiosk.less')} ${option.name}`, text: '−', onclick: () => change(-1) }),
          count,
          el('button', { type: 'button', class: 'step plus', 'aria-label': `${t('web.kiosk.more')} ${option.name}`, text: '+', onclick: () => change(1) })));
      });
    }

    function check() {
      let problem = '';
      for (const group of item.modifierGroups) {
        const chosen = total(group.id);
        const fieldset = dialog.querySelector(`fieldset[data-group-id="${CSS.escape(group.id)}"]`);
        fieldset.querySelectorAll('.plus').forEach((button) => { button.disabled = chosen >= group.max; });
        const valid = chosen >= group.min && chosen <= group.max;
        fieldset.classList.toggle('is-incomplete', !valid);
        if (!valid && !problem) problem = `${group.name}: ${groupRule(group)}`;
      }
      dialog.querySelector('.selection-hint').textContent = problem;
      dialog.querySelector('.add-button').disabled = !!problem;
      return !problem;
    }

    function line() {
      const options = [];
      const optionNames = [];
      let unit = item.price.amount;
      for (const group of item.modifierGroups) {
        for (const [optionId, count] of counts.get(group.id) || []) {
          const option = group.options.find((candidate) => candidate.id === optionId);
          for (let i = 0; i < count; i += 1) {
            options.push(optionId);
            optionNames.push(option.name);
            unit += option.priceDelta.amount;
          }
        }
      }
      const note = dialog.querySelector('input[name=note]').value.trim();
      return { itemId: item.id, name: item.name, quantity: choice.quantity, options, optionNames, note, unit };
    }

    dialog.querySelector('.item-title').textContent = `${item.name} · ${item.price.formatted}`;
    dialog.querySelector('.item-description').textContent = item.description;
    dialog.querySelector('.item-allergens').replaceChildren(...(item.allergens.length
      ? [el('strong', { text: `${t('web.kiosk.allergens')}: ` }), item.allergens.map((code) => t(`allergen.${code}`) || code).join(', ')]
      : []));
    dialog.querySelector('.groups').replaceChildren(...item.modifierGroups.map((group) => {
      const fieldset = el('fieldset', { class: 'group', dataset: { groupId: group.id } },
        el('legend', {}, el('span', { text: group.name }), el('small', { text: groupRule(group) })));
      (group.max === 1 ? singleChoice : steppers)(group, fieldset);
      return fieldset;
    }));
    dialog.querySelector('.quantity').textContent = '1';
    dialog.querySelector('input[name=note]').value = '';
    check();
    return choice;
  }

  // MARK: - Café time

  /** One formatter per zone that writes a date's wall-clock parts there (undefined: the browser's zone). */
  const partFormats = new Map();
  /** The wall-clock `{year, month, day, hour, minute, second}` of `date` in `timeZone`. */
  function zoneParts(timeZone, date) {
    const key = timeZone || '';
    if (!partFormats.has(key)) {
      partFormats.set(key, new Intl.DateTimeFormat('en-US', { timeZone: timeZone || undefined, hourCycle: 'h23',
        year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
    }
    const parts = {};
    partFormats.get(key).formatToParts(date)
      .forEach((part) => { if (part.type !== 'literal') parts[part.type] = Number(part.value); });
    return parts;
  }

  /** How far `timeZone`'s clock is ahead of UTC at `instant` (milliseconds). */
  function offsetAt(timeZone, instant) {
    const parts = zoneParts(timeZone, new Date(instant));
    return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second)
      - Math.floor(instant / 1000) * 1000;
  }

  /**
   * The instant `timeZone`'s clock shows a wall-clock time (DST-safe: the offset is looked up
   * there). `day` may run past the month's end (`day + 1` is tomorrow).
   */
  function zonedInstant(timeZone, year, month, day, hour = 0, minute = 0) {
    const wall = Date.UTC(year, month - 1, day, hour, minute);
    let guess = wall;
    for (let i = 0; i < 3; i += 1) {
      const next = wall - offsetAt(timeZone, guess);
      if (next === guess) break;
      guess = next;
    }
    return new Date(guess);
  }

  /** The next time `timeZone`'s clock shows `hour:minute`: today, or tomorrow once passed. */
  function nextZonedTime(timeZone, hour, minute) {
    const today = zoneParts(timeZone, new Date(now()));
    let instant = zonedInstant(timeZone, today.year, today.month, today.day, hour, minute);
    if (instant.getTime() <= now()) {
      instant = zonedInstant(timeZone, today.year, today.month, today.day + 1, hour, minute);
    }
    return instant;
  }

  /** Today's date (`2026-11-28`) in `timeZone`, by the server's clock. */
  function zonedToday(timeZone) {
    const today = zoneParts(timeZone, new Date(now()));
    const two = (number) => String(number).padStart(2, '0');
    return `${String(today.year).padStart(4, '0')}-${two(today.month)}-${two(today.day)}`;
  }

  /** The instant a date (`2026-11-28`) begins in `timeZone`, or of the day `days` later. */
  function dayStart(timeZone, date, days = 0) {
    const [year, month, day] = date.split('-').map(Number);
    return zonedInstant(timeZone, year, month, day + days, 0, 0);
  }

  // MARK: - Small helpers

  /** `m:ss` (or `h:mm:ss`) of a duration, in the page's digits. */
  const twoDigits = new Intl.NumberFormat(locale, { minimumIntegerDigits: 2, useGrouping: false });
  const oneDigit = new Intl.NumberFormat(locale, { useGrouping: false });
  function duration(milliseconds) {
    const total = Math.max(0, Math.floor(milliseconds / 1000));
    const hours = Math.floor(total / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const seconds = total % 60;
    return hours > 0
      ? `${oneDigit.format(hours)}:${twoDigits.format(minutes)}:${twoDigits.format(seconds)}`
      : `${oneDigit.format(minutes)}:${twoDigits.format(seconds)}`;
  }

  /** Times of day (12:41) in `timeZone` for the reader; one formatter per zone, made once. */
  const timeFormats = new Map();
  function timeOfDay(timeZone) {
    const key = timeZone || '';
    if (!timeFormats.has(key)) {
      timeFormats.set(key, new Intl.DateTimeFormat(locale, { timeZone: timeZone || undefined, timeStyle: 'short' }));
    }
    return timeFormats.get(key);
  }

  /** A whole number (an order's number) in the page's digits, without grouping. */
  const wholeNumber = new Intl.NumberFormat(locale, { useGrouping: false });

  /** A clock (HH:MM) in the café's time zone. */
  function startClock(element, timeZone) {
    const format = new Intl.DateTimeFormat(locale, { timeZone, timeStyle: 'short' });
    const tick = () => { element.textContent = format.format(new Date(now())); };
    tick();
    setInterval(tick, 1000);
  }

  /** The order status of tickets, as the API derives it (placed, preparing, ready, …). */
  function orderStatus(statuses) {
    const live = statuses.filter((status) => status !== 'cancelled');
    if (live.length === 0) return 'cancelled';
    if (live.every((status) => status === 'picked_up')) return 'picked_up';
    if (live.every((status) => status === 'ready' || status === 'picked_up')) return 'ready';
    if (live.some((status) => status !== 'new' && status !== 'held')) return 'preparing';
    return 'placed';
  }

  // A new token scanned while the page is open (same address, new fragment): use it.
  window.addEventListener('hashchange', () => {
    if (!location.hash.includes('token=')) return;
    takeTokenFromFragment();
    location.reload();
  });

  document.addEventListener('DOMContentLoaded', () => {
    document.querySelectorAll('.settings-button').forEach((button) => button.addEventListener('click', openSettings));
    document.querySelectorAll('.sound-hint').forEach((button) => button.addEventListener('click', sound.unlock));
  });

  return {
    page, locale, query, t, el, storage, now, connection, request, ApiError, NetworkError, sleep, randomKey,
    notify, sound, session, tokenRefused, TicketFeed, duration, startClock, orderStatus, money, groupRule,
    itemChoice, timeOfDay, wholeNumber, zoneParts, zonedInstant, nextZonedTime, zonedToday, dayStart,
  };
})();
