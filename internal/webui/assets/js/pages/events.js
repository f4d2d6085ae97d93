// Live events: every create, update and delete the UI hears of, newest first, from the
// server's event stream or, without one, from polling. New events are announced to
// screen readers only when the user asks for it (a busy server would talk non-stop).

import { h, replace, fmtClock } from '../dom.js';
import { feed, entityTypes } from '../live.js';
import { pageHeader, field, table, notice } from '../ui.js';
import * as api from '../api.js';

const MAX = 300;

function describe(ev) {
  const p = ev.payload || {};
  switch (ev['entity-type']) {
    case 'instance': return `${p.name || p.id || ''} ${p.status ? `(${api.runnerState(p)})` : ''}`;
    case 'job': return `#${p.id ?? ''} ${p.name || ''} ${p.action ? `(${p.action})` : ''}`;
    case 'pool': return `${p.id || ''} ${p.flavor ? `· ${p.flavor}` : ''}`;
    case 'repository': return `${p.owner ? `${p.owner}/` : ''}${p.name || p.id || ''}`;
    default: return p.name || String(p.id ?? '');
  }
}

export function eventsPage() {
  const events = [];
  let paused = false;
  const type = field({ label: 'Entity type', name: 'type', type: 'select', value: '', options: [['', 'All types'], ...entityTypes.map((t) => [t, t])] });
  const speak = field({ label: 'Announce new events to screen readers', name: 'speak', type: 'checkbox', value: false });
  const pause = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Pause');
  const count = h('p', { class: 'muted' });
  const list = h('div', { role: 'log', 'aria-live': 'off', 'aria-label': 'Events' });
  const render = () => {
    const t = type.control.value;
    const rows = events.filter((e) => !t || e['entity-type'] === t);
    count.textContent = `${rows.length} event${rows.length === 1 ? '' : 's'} since this page opened${paused ? ' (paused)' : ''}.`;
    replace(list, table({
      caption: { text: 'Events, newest first', hidden: true }, rows, empty: 'No event yet. Changes appear here as they happen.',
      columns: [
        { label: 'Time', cell: (e) => fmtClock(e.at) },
        { label: 'Type', cell: (e) => e['entity-type'] },
        { label: 'Operation', cell: (e) => e.operation },
        { label: 'Object', cell: (e) => describe(e) },
        { label: 'Source', cell: (e) => (e.polled ? 'polling' : 'stream'), class: 'hide-narrow' },
      ],
    }));
  };
  type.control.addEventListener('change', render);
  speak.control.addEventListener('change', () => list.setAttribute('aria-live', speak.control.checked ? 'polite' : 'off'));
  pause.addEventListener('click', () => {
    paused = !paused;
    pause.setAttribute('aria-pressed', String(paused));
    pause.textContent = paused ? 'Resume' : 'Pause';
    render();
  });
  const unsub = feed.subscribe(entityTypes, (ev) => {
    if (paused) return;
    events.unshift({ ...ev, at: new Date() });
    if (events.length > MAX) events.length = MAX;
    render();
  });
  const modeNote = h('div', {});
  const unmode = feed.onMode((m) => replace(modeNote, m === 'polling'
    ? notice('This server has no event stream (/api/v1/ws/events): the events below are the changes the UI finds by polling the REST API every 3 seconds.')
    : null));
  render();
  const node = h('div', {}, pageHeader('Live events'), modeNote,
    h('div', { class: 'filters' }, type, speak, pause), count, list);
  return { title: 'Live events', node, dispose: () => { unsub(); unmode(); } };
}
