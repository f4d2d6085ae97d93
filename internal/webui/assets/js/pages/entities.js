// Entities: repositories, organizations and enterprises, with create, edit and delete,
// and one entity with its pools, runners and events.

import { h, replace, toast } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, button, dl, errorBox, field, form, confirm, messageLog } from '../ui.js';
import { navigate, BASE } from '../router.js';
import { poolTitle, runnersTable } from './pools.js';

function managerStatus(e) {
  const s = e.pool_manager_status || {};
  if (s.running) return h('span', { class: 'badge badge-idle' }, 'running');
  return h('span', {}, h('span', { class: 'badge badge-trouble' }, 'not running'), s.failure_reason ? ` ${s.failure_reason}` : '');
}

function randomSecret() {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// credentialOptions lists GitHub and Gitea credentials as "forge:name" options.
async function credentialOptions() {
  const [gh, gt] = await Promise.all([api.get('/github/credentials'), api.optional('/gitea/credentials')]);
  return [...(gh || []).map((c) => ['github', c]), ...(gt || []).map((c) => ['gitea', c])]
    .map(([forge, c]) => [`${forge}:${c.name}`, `${c.name} (${forge}, endpoint ${c.endpoint ? c.endpoint.name : '?'})`]);
}

function secretField(help) {
  const w = field({ label: 'Webhook secret', name: 'webhook_secret', type: 'password', help, attrs: { autocomplete: 'off' } });
  const gen = button('Generate', () => {
    w.control.type = 'text';
    w.control.value = randomSecret();
    w.control.focus();
  }, { class: 'small' });
  w.appendChild(gen);
  return w;
}

function newEntityForm(creds) {
  if (creds.length === 0) {
    return h('p', {}, 'Add forge credentials first: ', link(`${BASE}credentials`, 'Credentials'), '.');
  }
  const kind = field({ label: 'Kind', name: 'kind', type: 'select', value: 'repositories', required: true,
    options: api.entityKinds.map((k) => [k.segment, k.noun]) });
  const owner = field({ label: 'Owner', name: 'owner', help: 'The user or organization that owns the repository.' });
  const name = field({ label: 'Name', name: 'name', required: true, help: 'Repository name, organization login or enterprise slug.' });
  const cred = field({ label: 'Credentials', name: 'credentials', type: 'select', required: true, options: creds });
  const secret = secretField('The secret the forge signs webhooks with. Generate one and set the same on the forge\'s webhook.');
  const balancer = field({ label: 'Pool balancing', name: 'pool_balancer_type', type: 'select', value: 'roundrobin',
    options: [['roundrobin', 'Round robin'], ['pack', 'Pack (fill the highest-priority pool first)']] });
  const syncOwner = () => {
    const repo = kind.control.value === 'repositories';
    owner.hidden = !repo;
    owner.control.required = repo;
  };
  kind.control.addEventListener('change', syncOwner);
  syncOwner();
  return form({
    label: 'Add an entity', fields: [kind, owner, name, cred, secret, balancer], submitLabel: 'Add',
    onSubmit: async (fd) => {
      const segment = String(fd.get('kind'));
      const [forge, credName] = String(fd.get('credentials')).split(/:(.*)/s);
      const secretValue = String(fd.get('webhook_secret') || '');
      if (!secretValue) { secret.showError('A webhook secret is required.'); secret.control.focus(); return; }
      const body = { name: String(fd.get('name')).trim(), credentials_name: credName, webhook_secret: secretValue,
        pool_balancer_type: fd.get('pool_balancer_type') };
      if (segment === 'repositories') body.owner = String(fd.get('owner')).trim();
      if (segment !== 'enterprises') body.forge_type = forge;
      const e = await api.post(`/${segment}`, body);
      toast(`${api.kindOf(segment).noun} ${api.entityName(e)} added.`);
      navigate(`${BASE}entities/${segment}/${e.id}`);
    },
  });
}

export function entitiesPage() {
  const body = h('div', {});
  const adder = h('div', {});
  const node = h('div', {}, pageHeader('Entities'),
    h('p', {}, 'The repositories, organizations and enterprises whose jobs garrison serves.'),
    body, h('details', { class: 'card' }, h('summary', {}, 'Add a repository, organization or enterprise'), adder));
  let adderLoaded = false;
  async function refresh() {
    try {
      const lists = await Promise.all(api.entityKinds.map((k) => api.get(`/${k.segment}`)));
      replace(body, api.entityKinds.map((k, i) => section(k.title, table({
        caption: { text: k.title, hidden: true },
        rows: lists[i] || [],
        empty: `No ${k.noun} yet.`,
        columns: [
          { label: 'Name', cell: (e) => link(`${BASE}entities/${k.segment}/${e.id}`, api.entityName(e), { 'data-key': `${k.segment}-${e.id}` }) },
          { label: 'Endpoint', cell: (e) => (e.endpoint ? e.endpoint.name : '—'), class: 'hide-narrow' },
          { label: 'Credentials', cell: (e) => e.credentials_name || '—', class: 'hide-narrow' },
          { label: 'Pool manager', cell: managerStatus },
        ],
      }))));
      if (!adderLoaded) {
        adderLoaded = true;
        replace(adder, newEntityForm(await credentialOptions()));
      }
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  return { title: 'Entities', node, refresh, types: ['repository', 'organization', 'enterprise'] };
}

function editForm(kind, e, creds, onSaved) {
  const cred = field({ label: 'Credentials', name: 'credentials', type: 'select', value: e.credentials_name,
    options: creds.map(([v, t]) => [v.split(/:(.*)/s)[1], t]), help: 'Must belong to the same endpoint.' });
  const secret = secretField('Leave empty to keep the current secret.');
  const balancer = field({ label: 'Pool balancing', name: 'pool_balancer_type', type: 'select', value: e.pool_balancing_type || 'roundrobin',
    options: [['roundrobin', 'Round robin'], ['pack', 'Pack']] });
  return form({
    label: `Edit ${kind.noun}`, fields: [cred, secret, balancer], submitLabel: 'Save',
    onSubmit: async (fd) => {
      const body = { credentials_name: fd.get('credentials'), pool_balancer_type: fd.get('pool_balancer_type') };
      const s = String(fd.get('webhook_secret') || '');
      if (s) body.webhook_secret = s;
      await api.put(`/${kind.segment}/${api.enc(e.id)}`, body);
      toast('Saved.');
      onSaved();
    },
  });
}

export function entityPage({ params }) {
  const kind = api.kindOf(params.kind);
  if (!kind) return { title: 'Not found', node: h('p', {}, 'No such kind of entity.') };
  const head = pageHeader(kind.noun[0].toUpperCase() + kind.noun.slice(1));
  const body = h('div', {});
  const edit = h('div', {});
  const node = h('div', {}, head, body, h('details', { class: 'card' }, h('summary', {}, `Edit this ${kind.noun}`), edit));
  const page = { title: kind.noun, node, types: [kind.type, 'pool', 'instance'] };
  let editLoaded = false;
  page.refresh = async () => {
    let e; let instances;
    try {
      [e, instances] = await Promise.all([api.get(`/${kind.segment}/${api.enc(params.id)}`), api.get(`/${kind.segment}/${api.enc(params.id)}/instances`)]);
    } catch (err) {
      replace(body, errorBox(err));
      return;
    }
    head.querySelector('h1').textContent = `${kind.noun[0].toUpperCase()}${kind.noun.slice(1)} ${api.entityName(e)}`;
    document.title = `${api.entityName(e)} · garrison`;
    const remove = button('Delete', async () => {
      if (!await confirm(`Delete the ${kind.noun} ${api.entityName(e)}? Delete its pools first.`)) return;
      try {
        await api.del(`/${kind.segment}/${api.enc(e.id)}`);
        toast(`${kind.noun} deleted.`);
        navigate(`${BASE}entities`);
      } catch (err) { toast(`Could not delete: ${err.message}`, 'error'); }
    }, { class: 'danger' });
    const pools = e.pool || [];
    replace(body,
      h('div', { class: 'actions' }, link(`${BASE}pools/new?entity=${kind.segment}:${e.id}`, 'New pool', { class: 'button primary' }), remove),
      section('Settings', dl([
        ['Endpoint', e.endpoint ? `${e.endpoint.name} (${e.endpoint.endpoint_type || 'github'})` : ''],
        ['Credentials', e.credentials_name],
        ['Pool balancing', e.pool_balancing_type],
        ['Pool manager', managerStatus(e)],
        ['ID', h('code', {}, e.id)],
      ])),
      section('Pools', table({
        caption: { text: 'Pools', hidden: true }, rows: pools, empty: 'No pool yet.',
        columns: [
          { label: 'Pool', cell: (p) => link(`${BASE}pools/${p.id}`, poolTitle(p), { 'data-key': `pool-${p.id}` }) },
          { label: 'Tags', cell: (p) => (p.tags || []).map((t) => t.name).join(', ') },
          { label: 'Enabled', cell: (p) => (p.enabled ? 'yes' : 'no') },
          { label: 'Max', numeric: true, cell: (p) => String(p.max_runners ?? 0) },
        ],
      })),
      section('Runners', runnersTable(instances || [])),
      section('Events', messageLog((e.events || []).slice(-30), `Events of ${api.entityName(e)}`)));
    if (!editLoaded) {
      editLoaded = true;
      try {
        replace(edit, editForm(kind, e, await credentialOptions(), () => page.refresh()));
      } catch (err) {
        replace(edit, errorBox(err));
      }
    }
  };
  return page;
}
