// The router: pages live under /ui/ and use the History API (the server answers every
// page path with index.html). After a navigation the page's h1 takes the focus and its
// title is announced, so screen-reader users know the page changed.

import { announce } from './dom.js';
import { feed } from './live.js';
import { errorBox } from './ui.js';

export const BASE = '/ui/';

const RESEED_MS = 30000;
const DEBOUNCE_MS = 250;

let routes = [];
let current = null; // {page, dispose}
let guard = null;
let onChange = null;

// setup installs the route table [[pattern, pageFactory, {public}]], a guard
// (path -> redirect path or null) and a callback after each navigation.
export function setup(table, opts) {
  routes = table.map(([pattern, factory, o]) => ({ parts: pattern ? pattern.split('/') : [], factory, public: Boolean(o && o.public) }));
  guard = opts.guard;
  onChange = opts.onChange;
  window.addEventListener('popstate', () => render(false));
  document.addEventListener('click', (ev) => {
    const a = ev.target.closest ? ev.target.closest('a[href]') : null;
    if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
    if (a.target || a.hasAttribute('download')) return;
    const url = new URL(a.href, location.href);
    if (url.origin !== location.origin || !url.pathname.startsWith(BASE)) return;
    ev.preventDefault();
    navigate(url.pathname + url.search);
  });
}

// start renders the page the browser opened, leaving the focus where the browser put it.
export function start() {
  return render(false);
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  return render(true);
}

// refresh re-renders the current page's data.
export function refresh() {
  if (current && current.page.refresh) return current.page.refresh();
  return render(false);
}

function match(path) {
  const rel = path.startsWith(BASE) ? path.slice(BASE.length) : path.replace(/^\/+/, '');
  const segs = rel.split('/').filter(Boolean).map(decodeURIComponent);
  for (const r of routes) {
    if (r.parts.length !== segs.length) continue;
    const params = {};
    let ok = true;
    r.parts.forEach((p, i) => {
      if (p.startsWith(':')) params[p.slice(1)] = segs[i];
      else if (p !== segs[i]) ok = false;
    });
    if (ok) return { route: r, params };
  }
  return null;
}

export function currentPath() {
  return location.pathname;
}

async function render(focus) {
  const redirect = guard ? await guard(location.pathname) : null;
  if (redirect && redirect !== location.pathname) {
    history.replaceState(null, '', redirect);
  }
  const main = document.getElementById('main');
  if (current) current.dispose();
  current = null;
  const m = match(location.pathname);
  const query = new URLSearchParams(location.search);
  let page;
  if (!m) {
    page = notFoundPage();
  } else {
    try {
      page = m.route.factory({ params: m.params, query });
    } catch (e) {
      page = { title: 'Error', node: errorBox(e, 'This page failed') };
    }
  }
  main.replaceChildren(page.node);
  document.title = `${page.title} · garrison`;
  current = { page, dispose: mount(page) };
  if (onChange) onChange(location.pathname, page);
  if (focus) {
    const h1 = main.querySelector('h1');
    (h1 || main).focus();
    announce(`${page.title} page`);
  }
}

// mount runs the page's first load and keeps it fresh: on live events of its types
// (debounced), and every RESEED_MS as events may be lost (streams-metrics.md EV-5), or
// as often as the page's every() asks (a job page follows a running job closely).
function mount(page) {
  if (!page.refresh) return () => page.dispose && page.dispose();
  let timer = null;
  let reseed = null;
  let running = false;
  let again = false;
  let live = true;
  const run = async () => {
    if (running) { again = true; return; }
    running = true;
    clearTimeout(reseed);
    try { await page.refresh(); } catch (e) { console.error('refresh', e); }
    running = false;
    if (!live) return;
    if (again) { again = false; run(); return; }
    reseed = setTimeout(run, page.every ? page.every() : RESEED_MS);
  };
  run();
  const unsub = page.types && page.types.length
    ? feed.subscribe(page.types, () => { clearTimeout(timer); timer = setTimeout(run, DEBOUNCE_MS); })
    : () => {};
  return () => {
    live = false;
    unsub();
    clearTimeout(timer);
    clearTimeout(reseed);
    if (page.dispose) page.dispose();
  };
}

function notFoundPage() {
  const node = document.createElement('div');
  const h1 = document.createElement('h1');
  h1.tabIndex = -1;
  h1.textContent = 'Page not found';
  const p = document.createElement('p');
  p.textContent = 'There is no such page in garrison\'s UI. ';
  const a = document.createElement('a');
  a.href = BASE;
  a.textContent = 'Go to the dashboard';
  p.appendChild(a);
  node.append(h1, p);
  return { title: 'Page not found', node };
}
