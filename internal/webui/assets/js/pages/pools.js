// Pools: the list, one pool with its runners, and the create/edit form.

import { h, replace, toast, announce, fmtDuration } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, button, badge, dl, errorBox, field, form, confirm, notice, since } from '../ui.js';
import { navigate, BASE } from '../router.js';

export function poolTitle(p) {
  const owner = api.poolOwner(p);
  return `${owner ? owner.name : 'pool'} · ${p.flavor || p.image || p.id.slice(0, 8)}`;
}

const tagNames = (p) => (p.tags || []).map((t) => t.name);

export function runnersTable(instances, caption = 'Runners') {
  const now = Date.now();
  return table({
    caption: { text: caption, hidden: true },
    rows: instances,
    empty: 'No runner.',
    columns: [
      { label: 'Runner', cell: (i) => link(`${BASE}runners/${encodeURIComponent(i.name)}`, i.name, { 'data-key': `runner-${i.name}` }) },
      { label: 'State', cell: (i) => badge(api.runnerState(i)) },
      { label: 'Instance', cell: (i) => (i.status || '—').replaceAll('_', ' '), class: 'hide-narrow' },
      { label: 'Job', cell: (i) => (i.job ? link(`${BASE}jobs/${i.job.id}`, `#${i.job.id}`) : '—'), class: 'hide-narrow' },
      { label: 'Age', cell: (i) => fmtDuration(since(i.created_at, now)) },
    ],
  });
}

export function poolsPage() {
  const body = h('div', {});
  const node = h('div', {}, pageHeader('Pools', link(`${BASE}pools/new`, 'New pool', { class: 'button primary' })), body);
  async function refresh() {
    try {
      const [pools, instances] = await Promise.all([api.get('/pools'), api.get('/instances')]);
      const n = new Map();
      for (const i of instances || []) n.set(i.pool_id, (n.get(i.pool_id) || 0) + 1);
      replace(body, table({
        caption: { text: 'Pools', hidden: true },
        rows: pools || [],
        empty: h('span', {}, 'No pool yet. Pools need a repository, organization or enterprise: ', link(`${BASE}entities`, 'see the entities'), '.'),
        columns: [
          { label: 'Pool', cell: (p) => link(`${BASE}pools/${p.id}`, poolTitle(p), { 'data-key': `pool-${p.id}` }) },
          { label: 'Provider', cell: (p) => p.provider_name, class: 'hide-narrow' },
          { label: 'Image', cell: (p) => p.image, class: 'hide-narrow' },
          { label: 'Tags', cell: (p) => tagNames(p).join(', ') },
          { label: 'Enabled', cell: (p) => (p.enabled ? 'yes' : 'no') },
          { label: 'Runners', numeric: true, cell: (p) => `${n.get(p.id) || 0} / ${p.max_runners ?? 0}` },
          { label: 'Min idle', numeric: true, cell: (p) => String(p.min_idle_runners ?? 0), class: 'hide-narrow' },
        ],
      }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  return { title: 'Pools', node, refresh, types: ['pool', 'instance'] };
}

export function poolPage({ params }) {
  const head = pageHeader('Pool');
  const body = h('div', {});
  const node = h('div', {}, head, body);
  const page = { title: 'Pool', node, types: ['pool', 'instance'] };
  page.refresh = async () => {
    let p;
    try {
      p = await api.get(`/pools/${api.enc(params.id)}`);
    } catch (e) {
      replace(body, errorBox(e));
      return;
    }
    const owner = api.poolOwner(p);
    const toggle = button(p.enabled ? 'Disable' : 'Enable', async () => {
      try {
        await api.put(`/pools/${api.enc(p.id)}`, { enabled: !p.enabled });
        announce(p.enabled ? 'Pool disabled' : 'Pool enabled');
        await page.refresh();
      } catch (e) { toast(`Could not change the pool: ${e.message}`, 'error'); }
    }, { 'data-key': 'toggle' });
    const remove = button('Delete', async () => {
      if (!await confirm(`Delete the pool ${poolTitle(p)}? Its runners must be gone first.`)) return;
      try {
        await api.del(`/pools/${api.enc(p.id)}`);
        toast('Pool deleted.');
        navigate(`${BASE}pools`);
      } catch (e) { toast(`Could not delete the pool: ${e.message}`, 'error'); }
    }, { class: 'danger' });
    head.querySelector('h1').textContent = poolTitle(p);
    document.title = `${poolTitle(p)} · garrison`;
    replace(body,
      h('div', { class: 'actions' }, link(`${BASE}pools/${p.id}/edit`, 'Edit', { class: 'button' }), toggle, remove),
      section('Settings', dl([
        ['Owner', owner ? link(`${BASE}entities/${owner.segment}/${owner.id}`, `${owner.noun} ${owner.name}`) : '—'],
        ['Enabled', p.enabled ? 'yes' : 'no'],
        ['Provider', p.provider_name],
        ['Image', p.image], ['Flavor', p.flavor],
        ['OS', `${p.os_type || '—'} / ${p.os_arch || '—'}`],
        ['Tags', tagNames(p).join(', ')],
        ['Runners', `min idle ${p.min_idle_runners ?? 0}, max ${p.max_runners ?? 0}`],
        ['Runner prefix', p.runner_prefix],
        ['Bootstrap timeout', `${p.runner_bootstrap_timeout ?? 20} min`],
        ['Priority', String(p.priority ?? 0)],
        ['Runner group', p['github-runner-group']],
        ['Template', p.template_name || (p.template_id ? `#${p.template_id}` : '')],
        ['Generation', String(p.generation ?? 0)],
        ['Extra specs', p.extra_specs ? h('code', {}, JSON.stringify(p.extra_specs)) : ''],
        ['ID', h('code', {}, p.id)],
      ])),
      section('Runners', runnersTable(p.instances || [])));
  };
  return page;
}

// entityOptions lists every repository, organization and enterprise as select options
// valued "segment:id".
export async function entityOptions() {
  const lists = await Promise.all(api.entityKinds.map((k) => api.get(`/${k.segment}`)));
  const out = [];
  api.entityKinds.forEach((k, i) => {
    for (const e of lists[i] || []) out.push([`${k.segment}:${e.id}`, `${k.noun}: ${api.entityName(e)}`]);
  });
  return out;
}

export function parseTags(s) {
  return String(s || '').split(',').map((t) => t.trim()).filter(Boolean);
}

export function numberOr(v, def) {
  const s = String(v ?? '').trim();
  return s === '' ? def : Number(s);
}

export function poolFormPage({ params, query }) {
  const editing = Boolean(params.id);
  const body = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));
  const title = editing ? 'Edit pool' : 'New pool';
  const node = h('div', {}, pageHeader(title), body);
  (async () => {
    try {
      const [pool, providers, entities, templates] = await Promise.all([
        editing ? api.get(`/pools/${api.enc(params.id)}`) : null,
        api.get('/providers'),
        editing ? [] : entityOptions(),
        api.optional('/templates'),
      ]);
      replace(body, poolForm({ pool, providers: providers || [], entities, templates, preselect: query.get('entity') }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  })();
  return { title, node };
}

function poolForm({ pool, providers, entities, templates, preselect }) {
  const p = pool || {};
  const fields = [];
  let entity = null;
  if (!pool) {
    if (entities.length === 0) {
      return notice('There is no repository, organization or enterprise yet: add one on the Entities page first.', 'warning');
    }
    entity = field({ label: 'Owner', name: 'entity', type: 'select', required: true, value: preselect || entities[0][0],
      options: entities, help: 'The repository, organization or enterprise whose jobs the pool serves.' });
    fields.push(entity);
  }
  const provider = field({ label: 'Provider', name: 'provider_name', type: 'select', required: true,
    value: p.provider_name, options: providers.map((x) => [x.name, x.description ? `${x.name} — ${x.description}` : x.name]) });
  if (!pool) fields.push(provider);
  const f = {
    image: field({ label: 'Image', name: 'image', required: true, value: p.image, help: 'Passed to the provider as is.' }),
    flavor: field({ label: 'Flavor', name: 'flavor', required: true, value: p.flavor, help: 'Passed to the provider as is.' }),
    tags: field({ label: 'Tags', name: 'tags', required: true, value: tagNames(p).join(', '),
      help: 'Comma-separated. A job runs here when all its runs-on labels are among these tags.' }),
    os_type: field({ label: 'OS type', name: 'os_type', type: 'select', value: p.os_type || 'linux', options: [['linux', 'Linux'], ['windows', 'Windows']] }),
    os_arch: field({ label: 'Architecture', name: 'os_arch', type: 'select', value: p.os_arch || 'amd64', options: [['amd64', 'amd64'], ['arm64', 'arm64'], ['arm', 'arm']] }),
    max_runners: field({ label: 'Maximum runners', name: 'max_runners', type: 'number', required: true, value: p.max_runners ?? 5, attrs: { min: '1', inputmode: 'numeric' } }),
    min_idle_runners: field({ label: 'Idle runners kept warm', name: 'min_idle_runners', type: 'number', value: p.min_idle_runners ?? 0, attrs: { min: '0', inputmode: 'numeric' } }),
    enabled: field({ label: 'Enabled', name: 'enabled', type: 'checkbox', value: pool ? p.enabled : true }),
    runner_prefix: field({ label: 'Runner name prefix', name: 'runner_prefix', value: p.runner_prefix || 'garm' }),
    runner_bootstrap_timeout: field({ label: 'Bootstrap timeout (minutes)', name: 'runner_bootstrap_timeout', type: 'number', value: p.runner_bootstrap_timeout ?? 20, attrs: { min: '1', inputmode: 'numeric' } }),
    priority: field({ label: 'Priority', name: 'priority', type: 'number', value: p.priority ?? 0, attrs: { min: '0', inputmode: 'numeric' }, help: 'Higher first when several pools match a job.' }),
    group: field({ label: 'Runner group', name: 'github-runner-group', value: p['github-runner-group'] || '' }),
    extra_specs: field({ label: 'Extra specs (JSON)', name: 'extra_specs', type: 'textarea', value: p.extra_specs ? JSON.stringify(p.extra_specs, null, 2) : '',
      help: 'Optional provider-specific settings, as a JSON object.' }),
  };
  let template = null;
  if (templates) {
    template = field({ label: 'Runner install template', name: 'template_id', type: 'select', value: p.template_id || '',
      options: [['', 'The default for the OS and forge'], ...templates.map((t) => [t.id, `${t.name} (${t.forge_type || 'any'}, ${t.os_type})`])] });
  }
  fields.push(...Object.values(f));
  if (template) fields.push(template);
  return form({
    label: pool ? 'Edit pool' : 'New pool', fields, submitLabel: pool ? 'Save the pool' : 'Create the pool',
    onSubmit: async (fd) => {
      const tags = parseTags(fd.get('tags'));
      if (tags.length === 0) { f.tags.showError('Give at least one tag.'); f.tags.control.focus(); return; }
      let extra;
      const raw = String(fd.get('extra_specs') || '').trim();
      if (raw) {
        try { extra = JSON.parse(raw); } catch (e) {
          f.extra_specs.showError(`Not valid JSON: ${e.message}`);
          f.extra_specs.control.focus();
          return;
        }
      }
      const bodyOut = {
        image: String(fd.get('image')).trim(), flavor: String(fd.get('flavor')).trim(), tags,
        os_type: fd.get('os_type'), os_arch: fd.get('os_arch'),
        max_runners: numberOr(fd.get('max_runners'), 1), min_idle_runners: numberOr(fd.get('min_idle_runners'), 0),
        enabled: fd.get('enabled') === 'on',
        runner_prefix: String(fd.get('runner_prefix') || '').trim() || undefined,
        runner_bootstrap_timeout: numberOr(fd.get('runner_bootstrap_timeout'), 20),
        priority: numberOr(fd.get('priority'), 0),
        'github-runner-group': String(fd.get('github-runner-group') || '').trim(),
      };
      if (extra !== undefined) bodyOut.extra_specs = extra;
      if (template && fd.get('template_id')) bodyOut.template_id = Number(fd.get('template_id'));
      let saved;
      if (pool) {
        saved = await api.put(`/pools/${api.enc(pool.id)}`, bodyOut);
      } else {
        const [segment, id] = String(fd.get('entity')).split(':');
        bodyOut.provider_name = fd.get('provider_name');
        saved = await api.post(`/${segment}/${api.enc(id)}/pools`, bodyOut);
      }
      toast(pool ? 'Pool saved.' : 'Pool created.');
      navigate(`${BASE}pools/${saved.id}`);
    },
  });
}
