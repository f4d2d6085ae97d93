// Scale sets (rest-api-2.md §2). Servers without the scale set API answer 404: the page
// says so, and the navigation hides the entry.

import { h, replace, toast } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, button, dl, errorBox, confirm, notice, messageLog } from '../ui.js';
import { navigate, BASE } from '../router.js';
import { runnersTable } from './pools.js';

const unavailable = () => notice('This server has no scale sets API (GET /api/v1/scalesets answered 404).');

const labelsOf = (s) => [s.name, ...(s.tags || []).map((t) => t.name)];

function ownerOf(s) {
  return s.repo_name || s.org_name || s.enterprise_name || '—';
}

export function scaleSetsPage() {
  const body = h('div', {});
  const node = h('div', {}, pageHeader('Scale sets', link(`${BASE}scalesets/new`, 'New scale set', { class: 'button primary' })), body);
  async function refresh() {
    try {
      const sets = await api.optional('/scalesets');
      if (sets === null) { replace(body, unavailable()); return; }
      replace(body, table({
        caption: { text: 'Scale sets', hidden: true }, rows: sets, empty: 'No scale set.',
        columns: [
          { label: 'Scale set', cell: (s) => link(`${BASE}scalesets/${s.id}`, s.name, { 'data-key': `ss-${s.id}` }) },
          { label: 'Owner', cell: ownerOf },
          { label: 'Labels', cell: (s) => labelsOf(s).join(', '), class: 'hide-narrow' },
          { label: 'Provider', cell: (s) => s.provider_name, class: 'hide-narrow' },
          { label: 'Enabled', cell: (s) => (s.enabled ? 'yes' : 'no') },
          { label: 'Desired', numeric: true, cell: (s) => String(s.desired_runner_count ?? 0) },
          { label: 'Max', numeric: true, cell: (s) => String(s.max_runners ?? 0) },
        ],
      }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  return { title: 'Scale sets', node, refresh, types: ['scaleset'] };
}

export function scaleSetPage({ params }) {
  const head = pageHeader(`Scale set ${params.id}`);
  const body = h('div', {});
  const node = h('div', {}, head, body);
  const page = { title: `Scale set ${params.id}`, node, types: ['scaleset', 'instance'] };
  page.refresh = async () => {
    let s; let instances;
    try {
      s = await api.optional(`/scalesets/${api.enc(params.id)}`);
      if (s === null) { replace(body, unavailable()); return; }
      instances = await api.optional(`/scalesets/${api.enc(params.id)}/instances`);
    } catch (e) {
      replace(body, errorBox(e));
      return;
    }
    head.querySelector('h1').textContent = `Scale set ${s.name}`;
    const toggle = button(s.enabled ? 'Disable' : 'Enable', async () => {
      try {
        await api.put(`/scalesets/${api.enc(s.id)}`, { enabled: !s.enabled });
        await page.refresh();
      } catch (e) { toast(`Could not change the scale set: ${e.message}`, 'error'); }
    });
    const remove = button('Delete', async () => {
      if (!await confirm(`Delete the scale set ${s.name}?`)) return;
      try {
        await api.del(`/scalesets/${api.enc(s.id)}`);
        navigate(`${BASE}scalesets`);
      } catch (e) { toast(`Could not delete: ${e.message}`, 'error'); }
    }, { class: 'danger' });
    replace(body, h('div', { class: 'actions' }, link(`${BASE}scalesets/${s.id}/edit`, 'Edit', { class: 'button' }), toggle, remove),
      section('Settings', dl([
        ['Owner', ownerOf(s)], ['Enabled', s.enabled ? 'yes' : 'no'], ['State', s.state], ['Provider', s.provider_name],
        ['Image', s.image], ['Flavor', s.flavor], ['OS', `${s.os_type || ''} / ${s.os_arch || ''}`],
        ['Labels', labelsOf(s).join(', ')],
        ['Runners', `min idle ${s.min_idle_runners ?? 0}, max ${s.max_runners ?? 0}, desired ${s.desired_runner_count ?? 0}`],
        ['Runner group', s['github-runner-group']],
      ])),
      section('Runners', runnersTable(instances || [])),
      section('Status messages', messageLog(s.status_messages, `Status messages of ${s.name}`)));
  };
  return page;
}
