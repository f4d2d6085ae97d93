// Shared components: page headers, tables, forms, dialogs, badges, timelines. They build
// semantic HTML (captions, scoped headers, labels tied to inputs, described-by help and
// errors) so that keyboard and screen-reader users get the same page.

import { h, uid, fmtTime, parseTime, timeEl } from './dom.js';
import { ApiError, stateGroup } from './api.js';

// pageHeader is the page's h1 (focused after navigation) and its actions.
export function pageHeader(title, ...actions) {
  return h('div', { class: 'page-header' },
    h('h1', { tabindex: '-1' }, title),
    actions.length ? h('div', { class: 'actions' }, actions) : null);
}

export function section(title, ...content) {
  const id = uid('sec');
  return h('section', { class: 'card', 'aria-labelledby': id }, h('h2', { id }, title), content);
}

// link is an in-app link (the router handles clicks on /ui/ links).
export function link(href, text, attrs = {}) {
  return h('a', { href, ...attrs }, text);
}

export function button(text, onClick, attrs = {}) {
  return h('button', { type: 'button', ...attrs, on: { click: onClick } }, text);
}

// table renders rows under columns {label, cell(row), class, numeric}; empty is shown
// when there are no rows. The wrapper scrolls sideways on small screens and can take the
// keyboard focus for that.
export function table({ caption, columns, rows, empty = 'Nothing here yet.', rowClass }) {
  if (!rows || rows.length === 0) return h('p', { class: 'empty' }, empty);
  const cap = h('caption', { class: caption && caption.hidden ? 'visually-hidden' : null },
    caption ? (caption.text ?? caption) : '');
  const head = h('thead', {}, h('tr', {}, columns.map((c) =>
    h('th', { scope: 'col', class: [c.class, c.numeric && 'num'] }, c.label))));
  const body = h('tbody', {}, rows.map((r) => h('tr', { class: rowClass ? rowClass(r) : null },
    columns.map((c, i) => (i === 0 && c.header !== false
      ? h('th', { scope: 'row', class: [c.class, c.numeric && 'num'] }, c.cell(r))
      : h('td', { class: [c.class, c.numeric && 'num'] }, c.cell(r)))))));
  const label = caption ? (caption.text ?? caption) : 'Table';
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': label, tabindex: '0' },
    h('table', {}, caption ? cap : null, head, body));
}

// badge shows a runner, job or instance state with its colour group and the text.
export function badge(state, group) {
  return h('span', { class: ['badge', `badge-${group || stateGroup(state)}`] }, (state || 'unknown').replaceAll('_', ' '));
}

export function jobBadge(job) {
  const a = job.action || 'unknown';
  let group = a === 'queued' ? 'starting' : a === 'in_progress' ? 'active' : 'idle';
  if (a === 'completed' && job.conclusion && job.conclusion !== 'success') group = 'trouble';
  const text = a === 'completed' && job.conclusion ? `completed: ${job.conclusion}` : a;
  return badge(text, group);
}

// dl renders [term, value] pairs as a description list.
export function dl(pairs) {
  return h('dl', { class: 'props' }, pairs.filter(Boolean).map(([k, v]) =>
    [h('dt', {}, k), h('dd', {}, v === undefined || v === null || v === '' ? '—' : v)]));
}

// errorText says what went wrong, with the API's details when there are any.
export function errorText(err) {
  if (err instanceof ApiError) {
    if (err.status === 0) return 'The server did not answer. Check that garrison is running.';
    return err.details ? `${err.code}: ${err.details}` : err.code;
  }
  return String(err && err.message ? err.message : err);
}

export function errorBox(err, prefix = 'Could not load') {
  return h('div', { class: 'notice notice-error', role: 'alert' }, `${prefix}: ${errorText(err)}`);
}

export function notice(text, kind = 'info') {
  return h('div', { class: ['notice', `notice-${kind}`] }, text);
}

// field is a labelled form control. spec: {label, name, type (text, number, password,
// email, checkbox, select, textarea, url), value, required, help, options [[value, text]],
// attrs}. It returns the wrapper; the control is wrapper.control.
export function field(spec) {
  const id = uid(`f-${spec.name}`);
  const helpId = spec.help ? `${id}-help` : null;
  const errId = `${id}-err`;
  const described = [helpId, errId].filter(Boolean).join(' ');
  const common = { id, name: spec.name, 'aria-describedby': described, required: spec.required, ...spec.attrs };
  let control;
  if (spec.type === 'select') {
    control = h('select', common, (spec.options || []).map(([v, t]) =>
      h('option', { value: v, selected: String(v) === String(spec.value ?? '') }, t)));
  } else if (spec.type === 'textarea') {
    control = h('textarea', { ...common, rows: spec.rows || 4, spellcheck: 'false' });
    control.value = spec.value ?? '';
  } else if (spec.type === 'checkbox') {
    control = h('input', { ...common, type: 'checkbox', checked: Boolean(spec.value) });
  } else {
    control = h('input', { ...common, type: spec.type || 'text', value: spec.value ?? '' });
  }
  const label = h('label', { for: id }, spec.label, spec.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, ' *') : null);
  const wrap = spec.type === 'checkbox'
    ? h('div', { class: 'field field-check' }, control, label,
      spec.help ? h('p', { id: helpId, class: 'help' }, spec.help) : null,
      h('p', { id: errId, class: 'field-error', hidden: true }))
    : h('div', { class: 'field' }, label, control,
      spec.help ? h('p', { id: helpId, class: 'help' }, spec.help) : null,
      h('p', { id: errId, class: 'field-error', hidden: true }));
  wrap.control = control;
  wrap.showError = (msg) => {
    const p = wrap.querySelector('.field-error');
    p.textContent = msg || '';
    p.hidden = !msg;
    if (msg) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
  };
  return wrap;
}

// form wires a submit handler: while it runs the submit button is disabled; an error
// is shown in an alert at the top of the form, which takes the focus.
export function form({ label, fields, submitLabel = 'Save', onSubmit, extra = [] }) {
  const errBox = h('div', { class: 'notice notice-error', role: 'alert', tabindex: '-1', hidden: true });
  const submit = h('button', { type: 'submit', class: 'primary' }, submitLabel);
  const f = h('form', { class: 'form', 'aria-label': label, novalidate: true }, errBox, fields, extra,
    h('div', { class: 'form-actions' }, submit));
  f.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    errBox.hidden = true;
    for (const w of fields) if (w && w.showError) w.showError('');
    const invalid = fields.find((w) => w && w.control && !w.control.checkValidity());
    if (invalid) {
      const closed = invalid.closest('details');
      if (closed) closed.open = true;
      invalid.showError(invalid.control.validationMessage);
      invalid.control.focus();
      return;
    }
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    try {
      await onSubmit(new FormData(f), f);
    } catch (e) {
      errBox.textContent = errorText(e);
      errBox.hidden = false;
      errBox.focus();
    } finally {
      submit.disabled = false;
      submit.removeAttribute('aria-busy');
    }
  });
  return f;
}

// confirm asks a yes/no question in a modal dialog and resolves to the answer. The
// dialog traps the focus while open and gives it back to the element that had it.
export function confirm(message, confirmLabel = 'Delete') {
  return new Promise((resolve) => {
    const opener = document.activeElement;
    const titleId = uid('dlg');
    const yes = h('button', { type: 'button', class: 'danger' }, confirmLabel);
    const no = h('button', { type: 'button' }, 'Cancel');
    const dlg = h('dialog', { class: 'dialog', 'aria-labelledby': titleId },
      h('p', { id: titleId }, message), h('div', { class: 'form-actions' }, no, yes));
    const done = (v) => {
      dlg.close();
      dlg.remove();
      if (opener && opener.focus) opener.focus();
      resolve(v);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dlg.addEventListener('cancel', (e) => { e.preventDefault(); done(false); });
    document.body.appendChild(dlg);
    dlg.showModal();
    no.focus();
  });
}

// timeline renders steps {label, time, state: done|current|pending|skipped, detail} as an
// ordered list; the current step is marked for assistive technology with aria-current.
export function timeline(steps, label) {
  return h('ol', { class: 'timeline', 'aria-label': label },
    steps.map((s) => h('li', { class: ['tl-step', `tl-${s.state}`], 'aria-current': s.state === 'current' ? 'step' : null },
      h('span', { class: 'tl-dot', 'aria-hidden': 'true' }),
      h('div', { class: 'tl-body' },
        h('span', { class: 'tl-label' }, s.label),
        h('span', { class: 'visually-hidden' }, `, ${stepStateText(s.state)}`),
        s.time ? h('span', { class: 'tl-time' }, ' ', timeEl(s.time)) : null,
        s.detail ? h('div', { class: 'tl-detail' }, s.detail) : null))));
}

function stepStateText(state) {
  return { done: 'done', current: 'in progress', pending: 'not yet', skipped: 'not recorded' }[state] || state;
}

// messageLog renders status messages (newest last) as a timeline of events.
export function messageLog(messages, label) {
  if (!messages || messages.length === 0) return h('p', { class: 'empty' }, 'No status messages yet.');
  return h('ol', { class: 'timeline messages', 'aria-label': label },
    messages.map((m) => h('li', { class: ['tl-step', 'tl-done', `lvl-${m.event_level || 'info'}`] },
      h('span', { class: 'tl-dot', 'aria-hidden': 'true' }),
      h('div', { class: 'tl-body' },
        h('span', { class: 'tl-time' }, timeEl(m.created_at)),
        m.event_level && m.event_level !== 'info' ? h('span', { class: 'lvl' }, ` ${m.event_level}`) : null,
        h('div', { class: 'tl-detail msg' }, m.message)))));
}

export function since(s, now = Date.now()) {
  const t = parseTime(s);
  return t ? now - t.getTime() : null;
}

export { fmtTime };
