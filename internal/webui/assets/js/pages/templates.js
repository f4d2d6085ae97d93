// Runner install templates (rest-api-2.md §3): the list, and an editor for one template
// (create, edit, copy, delete, restore the system templates). Servers without the
// templates API answer 404: the pages say so instead of failing.

import { h, replace, toast, fmtTime } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, table, link, button, errorBox, field, form, confirm, notice } from '../ui.js';
import { navigate, BASE } from '../router.js';

const unavailable = () => notice('This server has no runner install templates API yet (GET /api/v1/templates answered 404). '
  + 'Pools use garrison\'s built-in install script for their OS and forge.');

// Template data travels as base64 of the script's bytes.
export function encodeData(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export function decodeData(b64) {
  if (!b64) return '';
  const bin = atob(b64);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

export function templatesPage() {
  const body = h('div', {});
  const restore = button('Restore the system templates', async () => {
    if (!await confirm('Restore the four system templates to their built-in content? Your edits to them are lost.', 'Restore')) return;
    try {
      await api.post('/templates/restore', { restore_all: true });
      toast('System templates restored.');
      await refresh();
    } catch (e) { toast(`Could not restore: ${e.message}`, 'error'); }
  });
  const create = link(`${BASE}templates/new`, 'New template', { class: 'button primary' });
  const node = h('div', {}, pageHeader('Runner install templates', create, restore), body);
  async function refresh() {
    try {
      const list = await api.optional('/templates');
      const missing = list === null;
      restore.hidden = missing;
      create.hidden = missing;
      if (missing) { replace(body, unavailable()); return; }
      replace(body, table({
        caption: { text: 'Templates', hidden: true }, rows: list, empty: 'No template.',
        columns: [
          { label: 'Name', cell: (t) => link(`${BASE}templates/${t.id}`, t.name, { 'data-key': `tpl-${t.id}` }) },
          { label: 'Forge', cell: (t) => t.forge_type || '—' },
          { label: 'OS', cell: (t) => t.os_type },
          { label: 'Owner', cell: (t) => (t.owner_id === 'system' ? 'system' : t.owner_id || '—'), class: 'hide-narrow' },
          { label: 'Description', cell: (t) => t.description || '', class: 'hide-narrow' },
          { label: 'Updated', cell: (t) => fmtTime(t.updated_at), class: 'hide-narrow' },
        ],
      }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  return { title: 'Templates', node, refresh, types: ['template'] };
}

// editorKeys: Tab indents inside the script; Escape first lets Tab leave the editor, so
// keyboard users are never trapped. The caret position is announced on demand.
function editorKeys(area, status) {
  let escaped = false;
  area.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape') { escaped = true; return; }
    if (ev.key === 'Tab' && !escaped && !ev.shiftKey && !ev.ctrlKey && !ev.altKey && !ev.metaKey) {
      ev.preventDefault();
      area.setRangeText('\t', area.selectionStart, area.selectionEnd, 'end');
      area.dispatchEvent(new Event('input'));
    }
    escaped = false;
  });
  const where = () => {
    const before = area.value.slice(0, area.selectionStart);
    const line = before.split('\n').length;
    const col = before.length - before.lastIndexOf('\n');
    status.textContent = `Line ${line}, column ${col}`;
  };
  area.addEventListener('keyup', where);
  area.addEventListener('click', where);
}

export function templatePage({ params, query }) {
  const isNew = !params.id;
  const title = isNew ? 'New template' : `Template ${params.id}`;
  const head = pageHeader(title);
  const body = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));
  const node = h('div', {}, head, body);
  let dirty = false;
  const page = { title, node, types: isNew ? [] : ['template'] };
  page.refresh = async () => {
    if (dirty) return; // never overwrite the user's edits
    let t = null; let source = null;
    try {
      if (!isNew) {
        t = await api.get(`/templates/${api.enc(params.id)}`);
      } else if (query.get('copy')) {
        source = await api.get(`/templates/${api.enc(query.get('copy'))}`);
      } else if ((await api.optional('/templates')) === null) {
        replace(body, unavailable());
        return;
      }
    } catch (e) {
      replace(body, e instanceof api.ApiError && e.notFound && !isNew
        ? h('div', {}, unavailable(), h('p', {}, link(`${BASE}templates`, 'All templates')))
        : errorBox(e));
      return;
    }
    if (t) head.querySelector('h1').textContent = `Template ${t.name}`;
    replace(body, editor(t, source, () => { dirty = true; }));
  };
  return page;
}

function editor(t, source, markDirty) {
  const base = t || source || {};
  const fields = [
    field({ label: 'Name', name: 'name', required: true, value: t ? t.name : (source ? `${source.name}-copy` : '') }),
    field({ label: 'Description', name: 'description', value: base.description || '' }),
  ];
  if (!t) {
    fields.push(
      field({ label: 'Forge', name: 'forge_type', type: 'select', value: base.forge_type || 'github', options: [['github', 'GitHub'], ['gitea', 'Gitea']] }),
      field({ label: 'OS type', name: 'os_type', type: 'select', value: base.os_type || 'linux', options: [['linux', 'Linux'], ['windows', 'Windows']] }));
  }
  const status = h('p', { class: 'help', 'aria-live': 'off' }, 'Line 1, column 1');
  const script = field({ label: 'Install script (Go template)', name: 'data', type: 'textarea', required: true, rows: 22,
    value: decodeData(base.data), help: 'Tab indents; press Escape, then Tab, to leave the editor.', attrs: { class: 'code', wrap: 'off' } });
  editorKeys(script.control, status);
  script.appendChild(status);
  fields.push(script);
  const f = form({
    label: t ? `Edit template ${t.name}` : 'New template', fields, submitLabel: t ? 'Save' : 'Create',
    onSubmit: async (fd) => {
      const data = encodeData(String(fd.get('data')));
      let saved;
      if (t) {
        saved = await api.put(`/templates/${t.id}`, { name: String(fd.get('name')).trim(), description: String(fd.get('description')), data });
      } else {
        saved = await api.post('/templates', { name: String(fd.get('name')).trim(), description: String(fd.get('description')),
          data, forge_type: fd.get('forge_type'), os_type: fd.get('os_type') });
      }
      toast('Template saved.');
      navigate(`${BASE}templates/${saved.id}`, { replace: !t });
    },
  });
  f.addEventListener('input', markDirty);
  const extra = [];
  if (t) {
    extra.push(link(`${BASE}templates/new?copy=${t.id}`, 'Copy', { class: 'button' }));
    extra.push(button('Delete', async () => {
      if (!await confirm(`Delete the template ${t.name}? Pools that use it block the delete.`)) return;
      try {
        await api.del(`/templates/${t.id}`);
        toast('Template deleted.');
        navigate(`${BASE}templates`);
      } catch (e) { toast(`Could not delete: ${e.message}`, 'error'); }
    }, { class: 'danger' }));
  }
  return h('div', {},
    t ? h('p', { class: 'muted' }, `${t.forge_type || 'any forge'}, ${t.os_type}; owner ${t.owner_id || '—'}; updated ${fmtTime(t.updated_at)}`) : null,
    extra.length ? h('div', { class: 'actions' }, extra) : null, f);
}
