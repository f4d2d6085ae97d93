// Small DOM helpers. Everything the UI shows is built with h(), which sets text with
// textContent and attributes one by one: no HTML strings, so nothing the server returns
// can become markup.

// h creates an element. attrs: plain attributes, plus
//   on: {event: handler}, dataset keys as data-*, class as a string or array,
//   boolean values set/omit the attribute, null/undefined/false skip it.
// children: strings, numbers, nodes, arrays of them, null/false skipped.
export function h(tag, attrs, ...children) {
  const svg = tag.startsWith('svg:');
  const el = svg
    ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
    : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'on') {
      for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    } else if (k === 'class') {
      const cls = Array.isArray(v) ? v.filter(Boolean).join(' ') : v;
      if (cls) el.setAttribute('class', cls);
    } else if (k === 'value' && !svg) {
      el.value = v;
    } else if (k === 'checked' || k === 'selected') {
      el[k] = Boolean(v);
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

// replace swaps the children of el for children. When the focused element was inside el
// and carries data-key, the element with the same key in the new content gets the focus
// back, so live refreshes do not throw keyboard users out of a table.
export function replace(el, ...children) {
  const active = document.activeElement;
  const key = active && el.contains(active) ? active.dataset.key : undefined;
  el.replaceChildren();
  append(el, children);
  if (key !== undefined) {
    const again = el.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}

let idSeq = 0;

// uid returns an id unique in the document, for label/aria wiring.
export function uid(prefix = 'id') {
  idSeq += 1;
  return `${prefix}-${idSeq}`;
}

// Time formatting. Times from the API are RFC 3339; the zero time means "not set".

export function parseTime(s) {
  if (!s || s.startsWith('0001-01-01')) return null;
  const t = new Date(s);
  return Number.isNaN(t.getTime()) ? null : t;
}

export function fmtTime(s) {
  const t = s instanceof Date ? s : parseTime(s);
  if (!t) return '—';
  return t.toLocaleString(undefined, {
    year: 'numeric', month: 'short', day: 'numeric',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
}

export function fmtClock(s) {
  const t = s instanceof Date ? s : parseTime(s);
  if (!t) return '—';
  return t.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

// fmtDuration renders milliseconds as "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min".
export function fmtDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  if (ms < 0) ms = 0;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

// timeEl is a <time> element with a machine-readable datetime.
export function timeEl(s, text) {
  const t = s instanceof Date ? s : parseTime(s);
  if (!t) return h('span', { class: 'muted' }, '—');
  return h('time', { datetime: t.toISOString(), title: t.toISOString() }, text ?? fmtTime(t));
}

// announce reads msg to screen reader users through the polite live region.
export function announce(msg) {
  const region = document.getElementById('announcer');
  if (!region) return;
  region.textContent = '';
  // A fresh text node after a tick makes screen readers read repeated messages too.
  setTimeout(() => { region.textContent = msg; }, 50);
}

// toast shows a short message; errors stay until dismissed.
export function toast(msg, kind = 'info') {
  const box = document.getElementById('toasts');
  if (!box) return;
  const close = h('button', { type: 'button', class: 'toast-close', 'aria-label': 'Dismiss message' }, '×');
  const t = h('div', { class: ['toast', `toast-${kind}`], role: kind === 'error' ? 'alert' : null }, h('span', {}, msg), close);
  close.addEventListener('click', () => t.remove());
  box.appendChild(t);
  if (kind !== 'error') setTimeout(() => t.remove(), 6000);
}
