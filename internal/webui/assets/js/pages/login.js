// First run and login (streams-metrics.md §3.2): first run creates the admin, logs in and
// points the controller's URLs at this server unless the user typed others; login stores
// the token for the session.

import { h } from '../dom.js';
import * as api from '../api.js';
import * as auth from '../auth.js';
import { navigate, BASE } from '../router.js';
import { field, form, notice } from '../ui.js';

async function login(username, password) {
  const res = await api.post('/auth/login', { username, password }, { anonymous: true, quiet: true });
  if (!res || !res.token) throw new Error('the server answered without a token');
  auth.store(res.token, username);
}

function afterLogin() {
  const next = sessionStorage.getItem('garrison.after-login');
  sessionStorage.removeItem('garrison.after-login');
  return next && next.startsWith(BASE) && !next.startsWith(`${BASE}login`) && !next.startsWith(`${BASE}init`) ? next : BASE;
}

// defaultURLs are the controller URLs for a server reached at this page's origin.
function defaultURLs() {
  const o = location.origin;
  return {
    metadata_url: `${o}/api/v1/metadata`,
    callback_url: `${o}/api/v1/callbacks`,
    webhook_url: `${o}/webhooks`,
  };
}

function urlFields(values) {
  return [
    field({ label: 'Metadata URL', name: 'metadata_url', type: 'url', value: values.metadata_url, required: true,
      help: 'Where runner instances fetch their metadata. It must be reachable from the instances.' }),
    field({ label: 'Callback URL', name: 'callback_url', type: 'url', value: values.callback_url, required: true,
      help: 'Where runner instances report their status.' }),
    field({ label: 'Webhook URL', name: 'webhook_url', type: 'url', value: values.webhook_url,
      help: 'The base URL forges send workflow_job webhooks to.' }),
  ];
}

function urlsBody(fd) {
  const out = {};
  for (const k of ['metadata_url', 'callback_url', 'webhook_url']) {
    const v = String(fd.get(k) || '').trim();
    if (v) out[k] = v;
  }
  return out;
}

export function loginPage() {
  const user = field({ label: 'Username', name: 'username', required: true, value: auth.username(), attrs: { autocomplete: 'username' } });
  const pass = field({ label: 'Password', name: 'password', type: 'password', required: true, attrs: { autocomplete: 'current-password' } });
  const f = form({
    label: 'Log in', fields: [user, pass], submitLabel: 'Log in',
    onSubmit: async (fd) => {
      try {
        await login(String(fd.get('username')), String(fd.get('password')));
      } catch (e) {
        if (e instanceof api.ApiError && e.status === 401) throw new Error('Wrong username or password.');
        if (e instanceof api.ApiError && e.status === 429) throw new Error('Too many failed logins from here; wait a minute and try again.');
        throw e;
      }
      const ctrl = await api.get('/controller');
      navigate(ctrl && ctrl.metadata_url && ctrl.callback_url ? afterLogin() : `${BASE}init?step=urls`, { replace: true });
    },
  });
  const node = h('div', { class: 'auth-page' },
    h('h1', { tabindex: '-1' }, 'Log in to garrison'),
    f);
  return { title: 'Log in', node };
}

export function initPage({ query }) {
  if (query.get('step') === 'urls' && auth.token()) return urlsPage();
  const d = defaultURLs();
  const fields = [
    field({ label: 'Username', name: 'username', required: true, value: 'admin', attrs: { autocomplete: 'username' },
      help: 'Letters and digits only.' }),
    field({ label: 'Email', name: 'email', type: 'email', required: true, attrs: { autocomplete: 'email' } }),
    field({ label: 'Full name', name: 'full_name', attrs: { autocomplete: 'name' } }),
    field({ label: 'Password', name: 'password', type: 'password', required: true, attrs: { autocomplete: 'new-password', minlength: '8' },
      help: 'A strong password: the server refuses easily guessed ones.' }),
    field({ label: 'Repeat the password', name: 'password2', type: 'password', required: true, attrs: { autocomplete: 'new-password' } }),
  ];
  const urls = urlFields(d);
  const advanced = h('details', { class: 'advanced' }, h('summary', {}, 'Controller URLs (advanced)'),
    h('p', { class: 'help' }, 'By default runners reach this server at the address this page was opened with.'));
  const f = form({
    label: 'First run', fields: [...fields, ...urls], submitLabel: 'Create the administrator',
    onSubmit: async (fd) => {
      if (fd.get('password') !== fd.get('password2')) {
        fields[4].showError('The passwords differ.');
        fields[4].control.focus();
        return;
      }
      const username = String(fd.get('username')).trim();
      await api.post('/first-run', {
        username, email: String(fd.get('email')).trim(),
        full_name: String(fd.get('full_name') || '').trim() || username, password: String(fd.get('password')),
      }, { anonymous: true, quiet: true });
      await login(username, String(fd.get('password')));
      await api.put('/controller', urlsBody(fd));
      navigate(BASE, { replace: true });
    },
  });
  // The URL fields live in the advanced section but belong to the form.
  advanced.append(...urls);
  f.insertBefore(advanced, f.querySelector('.form-actions'));
  const node = h('div', { class: 'auth-page' },
    h('h1', { tabindex: '-1' }, 'Welcome to garrison'),
    h('p', {}, 'This server has no administrator yet. Create one to start.'),
    f);
  return { title: 'First run', node };
}

function urlsPage() {
  const urls = urlFields(defaultURLs());
  const f = form({
    label: 'Controller URLs', fields: urls, submitLabel: 'Save the URLs',
    onSubmit: async (fd) => {
      await api.put('/controller', urlsBody(fd));
      navigate(afterLogin(), { replace: true });
    },
  });
  const node = h('div', { class: 'auth-page' },
    h('h1', { tabindex: '-1' }, 'Controller URLs'),
    notice('The controller does not know yet where runners reach it. Until it does, the API answers 409 urls_required.'),
    f);
  return { title: 'Controller URLs', node };
}
