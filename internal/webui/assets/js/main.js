// Entry point: the shell (navigation, live status, user menu), the route table and the
// guard that sends the browser to first-run or login when needed.

import { h, replace } from './dom.js';
import * as api from './api.js';
import * as auth from './auth.js';
import { feed } from './live.js';
import * as router from './router.js';
import { loginPage, initPage } from './pages/login.js';
import { dashboardPage } from './pages/dashboard.js';
import { entitiesPage, entityPage } from './pages/entities.js';
import { poolsPage, poolPage, poolFormPage } from './pages/pools.js';
import { scaleSetsPage, scaleSetPage } from './pages/scalesets.js';
import { scaleSetFormPage } from './pages/scalesetform.js';
import { runnersPage, runnerPage } from './pages/runners.js';
import { jobsPage, jobPage } from './pages/jobs.js';
import { templatesPage, templatePage } from './pages/templates.js';
import { eventsPage } from './pages/events.js';
import { credentialsPage } from './pages/credentials.js';

const B = router.BASE;

const routes = [
  ['', dashboardPage],
  ['login', loginPage, { public: true }],
  ['init', initPage, { public: true }],
  ['entities', entitiesPage],
  ['entities/:kind/:id', entityPage],
  ['pools', poolsPage],
  ['pools/new', poolFormPage],
  ['pools/:id', poolPage],
  ['pools/:id/edit', poolFormPage],
  ['scalesets', scaleSetsPage],
  ['scalesets/new', scaleSetFormPage],
  ['scalesets/:id', scaleSetPage],
  ['scalesets/:id/edit', scaleSetFormPage],
  ['runners', runnersPage],
  ['runners/:name', runnerPage],
  ['jobs', jobsPage],
  ['jobs/:id', jobPage],
  ['templates', templatesPage],
  ['templates/new', templatePage],
  ['templates/:id', templatePage],
  ['credentials', credentialsPage],
  ['events', eventsPage],
];

// nav is the main navigation; optional entries are shown only when the server has
// their API (probed once after login).
const nav = [
  ['', 'Dashboard'],
  ['entities', 'Entities'],
  ['pools', 'Pools'],
  ['scalesets', 'Scale sets', 'scalesets'],
  ['runners', 'Runners'],
  ['jobs', 'Jobs'],
  ['templates', 'Templates'],
  ['credentials', 'Credentials'],
  ['events', 'Live events'],
];

const available = { scalesets: false };
let initChecked = false;

const publicPaths = new Set([`${B}login`, `${B}init`]);

// guard sends the browser to first-run until the controller has an admin, and to login
// while there is no valid token. Once the controller has its admin, the first-run page
// only sets the controller's URLs (?step=urls), for a logged-in user.
async function guard(path) {
  if (!initChecked || path === `${B}init`) {
    const state = await api.initState();
    if (state === 'init_required') return `${B}init`;
    initChecked = state === 'ready';
    if (path === `${B}init` && state === 'ready') {
      if (!auth.token()) return `${B}login`;
      if (new URLSearchParams(location.search).get('step') !== 'urls') return B;
    }
  }
  if (!auth.token() && !publicPaths.has(path)) {
    sessionStorage.setItem('garrison.after-login', path + location.search);
    return `${B}login`;
  }
  return null;
}

function renderNav(path) {
  const navEl = document.getElementById('nav');
  const loggedIn = Boolean(auth.token());
  navEl.hidden = !loggedIn;
  document.body.classList.toggle('logged-out', !loggedIn);
  if (!loggedIn) { navEl.replaceChildren(); return; }
  const items = nav.filter(([, , opt]) => !opt || available[opt]).map(([p, text]) => {
    const href = B + p;
    const here = p === '' ? path === B : path === href || path.startsWith(`${href}/`);
    return h('li', {}, h('a', { href, 'aria-current': here ? 'page' : null }, text));
  });
  replace(navEl, h('ul', {}, items));
}

function renderUser() {
  const box = document.getElementById('user-menu');
  if (!auth.token()) { box.replaceChildren(); return; }
  const out = h('button', { type: 'button', class: 'link-button' }, 'Log out');
  out.addEventListener('click', () => {
    auth.clear();
    feed.stop();
    router.navigate(`${B}login`);
  });
  replace(box, h('span', { class: 'user-name' }, auth.username() || 'admin'), ' ', out);
}

const modeText = {
  connecting: ['Connecting…', 'starting'],
  live: ['Live', 'idle'],
  polling: ['Polling every 3 s', 'starting'],
  offline: ['Server unreachable', 'trouble'],
  paused: ['', ''],
};

function renderLive(mode) {
  const box = document.getElementById('live-status');
  if (!auth.token() || mode === 'paused') { box.replaceChildren(); return; }
  const [text, group] = modeText[mode] || [mode, 'trouble'];
  const btn = h('button', { type: 'button', class: 'link-button', 'aria-label': 'Refresh this page now' }, 'Refresh');
  btn.addEventListener('click', () => router.refresh());
  const title = mode === 'live' ? 'Updates arrive from the server\'s event stream'
    : mode === 'polling' ? 'The server has no event stream: the UI asks for changes every 3 seconds' : '';
  replace(box, h('span', { class: ['live-dot', `badge-${group}`], 'aria-hidden': 'true' }),
    h('span', { role: 'status', title }, text), ' ', btn);
}

async function probeOptional() {
  try {
    available.scalesets = (await api.optional('/scalesets')) !== null;
  } catch {
    available.scalesets = false;
  }
  renderNav(location.pathname);
}

function onChange(path) {
  renderNav(path);
  renderUser();
  document.getElementById('nav-toggle').setAttribute('aria-expanded', 'false');
  document.body.classList.remove('nav-open');
  if (auth.token()) {
    if (!feed.started) { feed.start(); probeOptional(); }
  } else {
    feed.stop();
  }
}

function setupMenu() {
  const toggle = document.getElementById('nav-toggle');
  toggle.addEventListener('click', () => {
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    document.body.classList.toggle('nav-open', open);
    if (open) {
      const first = document.querySelector('#nav a');
      if (first) first.focus();
    }
  });
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Escape' && document.body.classList.contains('nav-open')) {
      toggle.setAttribute('aria-expanded', 'false');
      document.body.classList.remove('nav-open');
      toggle.focus();
    }
  });
}

api.setHooks({
  onInitRequired: () => { initChecked = false; router.navigate(`${B}init`, { replace: true }); },
  onURLsRequired: () => router.navigate(`${B}init?step=urls`, { replace: true }),
  onUnauthorized: () => {
    auth.clear();
    feed.stop();
    if (!publicPaths.has(location.pathname)) {
      sessionStorage.setItem('garrison.after-login', location.pathname + location.search);
      router.navigate(`${B}login`, { replace: true });
    }
  },
});

setupMenu();
feed.onMode(renderLive);
router.setup(routes, { guard, onChange });
router.start();
