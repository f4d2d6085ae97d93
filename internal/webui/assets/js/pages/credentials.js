// Forge endpoints and credentials: what an entity needs before it can be added. Lists,
// add a GitHub or Gitea endpoint, add PAT credentials, delete either.

import { h, replace, toast } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, button, errorBox, field, form, confirm } from '../ui.js';

function endpointForm(onDone) {
  const forge = field({ label: 'Forge', name: 'forge', type: 'select', value: 'github', options: [['github', 'GitHub or GitHub Enterprise Server'], ['gitea', 'Gitea']] });
  const name = field({ label: 'Name', name: 'name', required: true });
  const desc = field({ label: 'Description', name: 'description' });
  const base = field({ label: 'Base URL', name: 'base_url', type: 'url', required: true, help: 'The forge\'s web address, e.g. https://ghes.example.com' });
  const apiURL = field({ label: 'API base URL', name: 'api_base_url', type: 'url', required: true, help: 'e.g. https://ghes.example.com/api/v3/' });
  const upload = field({ label: 'Upload base URL (GitHub)', name: 'upload_base_url', type: 'url', help: 'e.g. https://ghes.example.com/api/uploads/' });
  forge.control.addEventListener('change', () => { upload.hidden = forge.control.value !== 'github'; });
  return form({
    label: 'Add an endpoint', fields: [forge, name, desc, base, apiURL, upload], submitLabel: 'Add the endpoint',
    onSubmit: async (fd) => {
      const f = fd.get('forge');
      const body = { name: String(fd.get('name')).trim(), description: String(fd.get('description') || ''),
        base_url: String(fd.get('base_url')).trim(), api_base_url: String(fd.get('api_base_url')).trim() };
      if (f === 'github') body.upload_base_url = String(fd.get('upload_base_url') || '').trim() || body.api_base_url;
      await api.post(`/${f}/endpoints`, body);
      toast('Endpoint added.');
      onDone();
    },
  });
}

function credentialsForm(endpoints, onDone) {
  if (endpoints.length === 0) return h('p', {}, 'Add an endpoint first.');
  const ep = field({ label: 'Endpoint', name: 'endpoint', type: 'select', required: true,
    options: endpoints.map((e) => [`${e.endpoint_type || 'github'}:${e.name}`, `${e.name} (${e.endpoint_type || 'github'})`]) });
  const name = field({ label: 'Name', name: 'name', required: true });
  const desc = field({ label: 'Description', name: 'description' });
  const pat = field({ label: 'Personal access token', name: 'pat', type: 'password', required: true, attrs: { autocomplete: 'off' },
    help: 'Stored encrypted; never shown again. GitHub App credentials: use garm-cli or the garrison command.' });
  return form({
    label: 'Add credentials', fields: [ep, name, desc, pat], submitLabel: 'Add the credentials',
    onSubmit: async (fd) => {
      const [forge, endpoint] = String(fd.get('endpoint')).split(/:(.*)/s);
      await api.post(`/${forge}/credentials`, { name: String(fd.get('name')).trim(), description: String(fd.get('description') || ''),
        endpoint, auth_type: 'pat', pat: { oauth2_token: String(fd.get('pat')) }, app: {} });
      toast('Credentials added.');
      onDone();
    },
  });
}

export function credentialsPage() {
  // The lists are redrawn on every change; the forms stay where they are, so that a
  // change arriving while someone types neither moves nor blurs the field.
  const lists = h('div', {});
  const forms = h('div', {});
  const node = h('div', {}, pageHeader('Credentials and endpoints'), lists, forms);
  let formsShown = false;
  async function refresh() {
    try {
      const [ghE, gtE, ghC, gtC] = await Promise.all([api.get('/github/endpoints'), api.optional('/gitea/endpoints'),
        api.get('/github/credentials'), api.optional('/gitea/credentials')]);
      const endpoints = [...(ghE || []), ...(gtE || [])];
      const creds = [...(ghC || []).map((c) => ({ ...c, forge: 'github' })), ...(gtC || []).map((c) => ({ ...c, forge: 'gitea' }))];
      const delEndpoint = (e) => button('Delete', async () => {
        if (!await confirm(`Delete the endpoint ${e.name}?`)) return;
        try { await api.del(`/${e.endpoint_type || 'github'}/endpoints/${api.enc(e.name)}`); await refresh(); } catch (err) { toast(`Could not delete: ${err.message}`, 'error'); }
      }, { class: 'danger small', 'aria-label': `Delete the endpoint ${e.name}`, 'data-key': `del-ep-${e.name}` });
      const delCred = (c) => button('Delete', async () => {
        if (!await confirm(`Delete the credentials ${c.name}?`)) return;
        try { await api.del(`/${c.forge}/credentials/${c.id}`); await refresh(); } catch (err) { toast(`Could not delete: ${err.message}`, 'error'); }
      }, { class: 'danger small', 'aria-label': `Delete the credentials ${c.name}`, 'data-key': `del-cred-${c.forge}-${c.id}` });
      replace(lists,
        section('Credentials', table({
          caption: { text: 'Credentials', hidden: true }, rows: creds, empty: 'No credentials yet.',
          columns: [
            { label: 'Name', cell: (c) => c.name },
            { label: 'Forge', cell: (c) => c.forge },
            { label: 'Endpoint', cell: (c) => (c.endpoint ? c.endpoint.name : '—') },
            { label: 'Auth', cell: (c) => c['auth-type'] || '—', class: 'hide-narrow' },
            { label: 'Rate limit left', numeric: true, cell: (c) => (c.rate_limit ? `${c.rate_limit.remaining} / ${c.rate_limit.limit}` : '—'), class: 'hide-narrow' },
            { label: 'Actions', cell: delCred },
          ],
        })),
        section('Endpoints', table({
          caption: { text: 'Endpoints', hidden: true }, rows: endpoints, empty: 'No endpoint.',
          columns: [
            { label: 'Name', cell: (e) => e.name },
            { label: 'Forge', cell: (e) => e.endpoint_type || 'github' },
            { label: 'Base URL', cell: (e) => e.base_url, class: 'hide-narrow' },
            { label: 'API', cell: (e) => e.api_base_url, class: 'hide-narrow' },
            { label: 'Actions', cell: delEndpoint },
          ],
        })));
      if (!formsShown) {
        formsShown = true;
        replace(forms,
          h('details', { class: 'card' }, h('summary', {}, 'Add credentials'), credentialsForm(endpoints, () => { formsShown = false; refresh(); })),
          h('details', { class: 'card' }, h('summary', {}, 'Add an endpoint'), endpointForm(() => { formsShown = false; refresh(); })));
      }
    } catch (e) {
      replace(lists, errorBox(e));
    }
  }
  return { title: 'Credentials', node, refresh, types: ['github_credentials', 'gitea_credentials', 'github_endpoint'] };
}
