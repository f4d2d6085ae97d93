// The admin token in the browser, as GARM's web UI keeps it (streams-metrics.md §3.2):
// cookie garm_token (and garm_user for the name), path=/, so that REST calls can send it
// as a Bearer header and websockets, which cannot set headers, carry it as the cookie.
// garrison's UI tightens it: SameSite=Strict, Secure under HTTPS, and the cookie expires
// with the token. The token never appears in a URL.

const TOKEN = 'garm_token';
const USER = 'garm_user';

function readCookie(name) {
  for (const part of document.cookie.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return decodeURIComponent(v.join('='));
  }
  return '';
}

function writeCookie(name, value, expires) {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Path=/; Expires=${expires.toUTCString()}; SameSite=Strict${secure}`;
}

// claims decodes the token's payload (no verification: the server does that).
export function claims(token) {
  try {
    const part = token.split('.')[1];
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    return JSON.parse(json);
  } catch {
    return null;
  }
}

// token returns the stored token, or '' when there is none or it has expired.
export function token() {
  const t = readCookie(TOKEN);
  if (!t) return '';
  const c = claims(t);
  if (!c || (c.exp && c.exp * 1000 <= Date.now())) {
    clear();
    return '';
  }
  return t;
}

export function username() {
  return readCookie(USER);
}

// store keeps a fresh token until it expires (7 days at most, as GARM's UI).
export function store(t, user) {
  const c = claims(t);
  const week = Date.now() + 7 * 24 * 3600 * 1000;
  const exp = new Date(c && c.exp ? Math.min(c.exp * 1000, week) : week);
  writeCookie(TOKEN, t, exp);
  writeCookie(USER, user, exp);
}

export function clear() {
  const past = new Date(0);
  writeCookie(TOKEN, '', past);
  writeCookie(USER, '', past);
}
