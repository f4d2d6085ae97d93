// Live updates. When the server has the event stream (/api/v1/ws/events, GARM's protocol,
// streams-metrics.md §1.2) the UI subscribes to the entity types its pages show; when it
// does not (the route answers 404) or the socket drops, the UI polls the REST lists of
// those types and turns what changed into the same events. Listeners cannot tell the two
// apart, except through the mode this module reports for the status indicator.

import * as api from './api.js';

const WS_PATH = '/api/v1/ws/events';
const POLL_MS = 3000;
const PROBE_MS = 60000;

// lists are the REST routes that list each entity type, for polling.
const lists = {
  repository: '/repositories',
  organization: '/organizations',
  enterprise: '/enterprises',
  pool: '/pools',
  instance: '/instances',
  job: '/jobs',
  scaleset: '/scalesets',
  template: '/templates',
};

export const entityTypes = Object.keys(lists);

class Feed {
  constructor() {
    this.listeners = new Set(); // {types: Set, fn}
    this.modeListeners = new Set();
    this.mode = 'connecting'; // connecting | live | polling | offline | paused
    this.ws = null;
    this.snapshots = new Map(); // type -> Map(key -> json) of the last poll
    this.pollTimer = null;
    this.retryTimer = null;
    this.retryDelay = 1000;
    this.started = false;
    this.missing = new Set(); // list routes that answered 404
  }

  // subscribe calls fn(event) for events of the given types; it returns the unsubscriber.
  subscribe(types, fn) {
    const l = { types: new Set(types), fn };
    this.listeners.add(l);
    this.resubscribe();
    return () => { this.listeners.delete(l); this.resubscribe(); };
  }

  onMode(fn) {
    this.modeListeners.add(fn);
    fn(this.mode);
    return () => this.modeListeners.delete(fn);
  }

  setMode(m) {
    if (this.mode === m) return;
    this.mode = m;
    for (const fn of this.modeListeners) fn(m);
  }

  wanted() {
    const all = new Set();
    for (const l of this.listeners) for (const t of l.types) all.add(t);
    return all;
  }

  emit(ev) {
    for (const l of this.listeners) {
      if (l.types.has(ev['entity-type'])) {
        try { l.fn(ev); } catch (e) { console.error('live listener', e); }
      }
    }
  }

  start() {
    if (this.started) return;
    this.started = true;
    this.connect();
  }

  stop() {
    this.started = false;
    clearTimeout(this.retryTimer);
    clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (this.ws) { this.ws.onclose = null; this.ws.close(1000); this.ws = null; }
    this.snapshots.clear();
    this.setMode('paused');
  }

  // connect probes the event route with a plain GET (a websocket route answers 400 to
  // it, a missing one 404) and opens the socket, or falls back to polling.
  async connect() {
    if (!this.started) return;
    this.setMode(this.mode === 'polling' ? 'polling' : 'connecting');
    let present = false;
    try {
      await api.get('/ws/events', { quiet: true });
      present = true;
    } catch (e) {
      present = e instanceof api.ApiError && e.status !== 404 && e.status !== 0 && e.status !== 401 && e.status !== 409;
    }
    if (!this.started) return;
    if (!present) {
      this.startPolling();
      this.retryTimer = setTimeout(() => this.connect(), PROBE_MS);
      return;
    }
    this.openSocket();
  }

  openSocket() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    let opened = false;
    const ws = new WebSocket(`${scheme}//${location.host}${WS_PATH}`);
    this.ws = ws;
    const timeout = setTimeout(() => { if (!opened) ws.close(); }, 10000);
    ws.onopen = () => {
      opened = true;
      clearTimeout(timeout);
      this.retryDelay = 1000;
      this.stopPolling();
      this.setMode('live');
      this.sendSubscription();
    };
    ws.onmessage = (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch { return; }
      if (ev && ev['entity-type']) this.emit(ev);
    };
    ws.onclose = () => {
      clearTimeout(timeout);
      this.ws = null;
      if (!this.started) return;
      this.startPolling();
      const jitter = Math.random() * 0.25 * this.retryDelay;
      this.retryTimer = setTimeout(() => this.connect(), this.retryDelay + jitter);
      this.retryDelay = Math.min(this.retryDelay * 1.5, 30000);
    };
  }

  // sendSubscription sends the union of what the pages want. An empty union is not sent:
  // the server would ignore it (EV-2), and events of other types are dropped here.
  sendSubscription() {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    const types = [...this.wanted()];
    if (types.length === 0) return;
    this.ws.send(JSON.stringify({ 'send-everything': false, filters: types.map((t) => ({ 'entity-type': t })) }));
  }

  resubscribe() {
    if (this.mode === 'live') this.sendSubscription();
    else if (this.mode === 'polling') this.schedulePoll(0);
  }

  startPolling() {
    if (this.mode !== 'polling') this.setMode('polling');
    this.schedulePoll(0);
  }

  stopPolling() {
    clearTimeout(this.pollTimer);
    this.pollTimer = null;
    this.snapshots.clear();
  }

  schedulePoll(delay) {
    clearTimeout(this.pollTimer);
    this.pollTimer = setTimeout(() => this.poll(), delay);
  }

  async poll() {
    if (!this.started || this.mode === 'live') return;
    let ok = true;
    for (const type of this.wanted()) {
      if (!lists[type] || this.missing.has(type)) continue;
      try {
        const items = await api.get(lists[type]);
        this.diff(type, items || []);
      } catch (e) {
        if (e instanceof api.ApiError && e.status === 404) this.missing.add(type);
        else ok = false;
      }
    }
    if (!this.started || this.mode === 'live') return;
    this.setMode(ok ? 'polling' : 'offline');
    this.schedulePoll(POLL_MS);
  }

  // diff compares a fresh list with the previous one and emits create/update/delete
  // events for what changed; the first list of a type only sets the baseline.
  diff(type, items) {
    const prev = this.snapshots.get(type);
    const next = new Map();
    for (const it of items) next.set(String(it.id ?? it.name), { json: JSON.stringify(it), it });
    this.snapshots.set(type, next);
    if (!prev) return;
    for (const [k, v] of next) {
      const old = prev.get(k);
      if (!old) this.emit({ 'entity-type': type, operation: 'create', payload: v.it, polled: true });
      else if (old.json !== v.json) this.emit({ 'entity-type': type, operation: 'update', payload: v.it, polled: true });
    }
    for (const [k, v] of prev) {
      if (!next.has(k)) this.emit({ 'entity-type': type, operation: 'delete', payload: v.it, polled: true });
    }
  }
}

export const feed = new Feed();
