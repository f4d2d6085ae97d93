// Runners: every instance with its state, and one runner with its status messages as a
// timeline (newest at the bottom, as they happened).

import { h, replace, toast, fmtDuration } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, button, badge, dl, errorBox, confirm, messageLog, since, field } from '../ui.js';
import { BASE } from '../router.js';
import { poolTitle } from './pools.js';

export function runnersPage({ query }) {
  const filter = field({ label: 'Show', name: 'state', type: 'select', value: query.get('state') || '',
    options: [['', 'All runners'], ...api.stateGroups.map((g) => [g, `${g} only`])] });
  const body = h('div', {});
  const node = h('div', {}, pageHeader('Runners'), h('div', { class: 'filters' }, filter), body);
  let pools = new Map();
  async function refresh() {
    try {
      const [instances, poolList] = await Promise.all([api.get('/instances'), api.get('/pools')]);
      pools = new Map((poolList || []).map((p) => [p.id, p]));
      const g = filter.control.value;
      const rows = (instances || []).filter((i) => !g || api.stateGroup(api.runnerState(i)) === g);
      const now = Date.now();
      replace(body, table({
        caption: { text: 'Runners', hidden: true },
        rows,
        empty: g ? 'No runner in that state.' : 'No runner. Pools create runners for queued jobs and to keep their idle minimum.',
        columns: [
          { label: 'Runner', cell: (i) => link(`${BASE}runners/${encodeURIComponent(i.name)}`, i.name, { 'data-key': `runner-${i.name}` }) },
          { label: 'State', cell: (i) => badge(api.runnerState(i)) },
          { label: 'Pool', cell: (i) => (pools.has(i.pool_id) ? link(`${BASE}pools/${i.pool_id}`, poolTitle(pools.get(i.pool_id))) : (i.pool_id || (i.scale_set_id ? `scale set ${i.scale_set_id}` : '—'))), class: 'hide-narrow' },
          { label: 'Job', cell: (i) => (i.job ? link(`${BASE}jobs/${i.job.id}`, `#${i.job.id}`) : '—'), class: 'hide-narrow' },
          { label: 'Age', cell: (i) => fmtDuration(since(i.created_at, now)) },
        ],
      }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  filter.control.addEventListener('change', () => {
    const v = filter.control.value;
    history.replaceState(null, '', v ? `${BASE}runners?state=${encodeURIComponent(v)}` : `${BASE}runners`);
    refresh();
  });
  return { title: 'Runners', node, refresh, types: ['instance', 'pool'] };
}

export function runnerPage({ params }) {
  const name = params.name;
  const head = pageHeader(`Runner ${name}`);
  const body = h('div', {});
  const node = h('div', {}, head, body);
  const page = { title: `Runner ${name}`, node, types: ['instance'] };
  page.refresh = async () => {
    let i;
    try {
      i = await api.get(`/instances/${api.enc(name)}`);
    } catch (e) {
      if (e instanceof api.ApiError && e.notFound) {
        replace(body, h('p', {}, 'This runner is gone: garrison deleted it, or it never existed. ', link(`${BASE}runners`, 'All runners'), '.'));
        return;
      }
      replace(body, errorBox(e));
      return;
    }
    const del = (force) => async () => {
      const q = force ? 'Force-delete this runner? Provider errors are ignored while it is removed.' : `Delete the runner ${name}?`;
      if (!await confirm(q, force ? 'Force delete' : 'Delete')) return;
      try {
        await api.del(`/instances/${api.enc(name)}?forceRemove=${force}&bypassGHUnauthorized=false`);
        toast('The runner is being removed.');
        await page.refresh();
      } catch (e) { toast(`Could not delete the runner: ${e.message}`, 'error'); }
    };
    const deleting = ['pending_delete', 'pending_force_delete', 'deleting', 'deleted'].includes(i.status);
    replace(body,
      h('div', { class: 'actions' },
        button('Delete', del(false), { class: 'danger', disabled: deleting }),
        button('Force delete', del(true), { class: 'danger', disabled: i.status === 'pending_force_delete' || i.status === 'deleting' })),
      section('Runner', dl([
        ['State', badge(api.runnerState(i))],
        ['Instance status', (i.status || '').replaceAll('_', ' ')],
        ['Runner status', (i.runner_status || '').replaceAll('_', ' ')],
        ['Pool', i.pool_id ? link(`${BASE}pools/${i.pool_id}`, i.pool_id) : (i.scale_set_id ? link(`${BASE}scalesets/${i.scale_set_id}`, `scale set ${i.scale_set_id}`) : '')],
        ['Job', i.job ? link(`${BASE}jobs/${i.job.id}`, `#${i.job.id} ${i.job.name || ''}`) : ''],
        ['Provider', `${i.provider_name || ''}${i.provider_id ? ` (${i.provider_id})` : ''}`],
        ['Forge runner id', i.agent_id ? String(i.agent_id) : ''],
        ['OS', [i.os_type, i.os_name, i.os_version, i.os_arch].filter(Boolean).join(' ')],
        ['Addresses', (i.addresses || []).map((a) => `${a.address} (${a.type})`).join(', ')],
        ['Created', h('span', {}, fmtDuration(since(i.created_at)), ' ago')],
        ['Generation', String(i.generation ?? 0)],
      ])),
      section('Status messages', messageLog(i.status_messages, `Status messages of ${name}`)));
  };
  return page;
}

