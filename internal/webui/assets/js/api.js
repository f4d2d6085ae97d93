// The REST API v1 client of the UI. Every call sends the admin token as a Bearer header;
// errors become ApiError with the API's error body (rest-api.md §1.4).

import * as auth from './auth.js';

export const PREFIX = '/api/v1';

export class ApiError extends Error {
  constructor(status, body) {
    const code = (body && body.error) || `HTTP ${status}`;
    const details = (body && body.details) || '';
    super(details ? `${code}: ${details}` : code);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  // notFound is true for a 404: a route this server does not have, or a missing object.
  get notFound() { return this.status === 404; }
}

// Hooks main.js installs: what to do when the server says the controller needs its first
// run or its URLs, or that the token is no longer accepted.
const hooks = { onInitRequired: null, onURLsRequired: null, onUnauthorized: null };

export function setHooks(h) { Object.assign(hooks, h); }

async function request(method, path, body, opts = {}) {
  const headers = { Accept: 'application/json' };
  const t = auth.token();
  if (t && !opts.anonymous) headers.Authorization = `Bearer ${t}`;
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(PREFIX + path, init);
  } catch (e) {
    throw new ApiError(0, { error: 'Network error', details: 'the server did not answer' });
  }
  const text = await resp.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (resp.ok) return data;
  const err = new ApiError(resp.status, data);
  if (!opts.quiet) dispatchProblem(err);
  throw err;
}

function dispatchProblem(err) {
  if (err.status === 409 && err.code === 'init_required' && hooks.onInitRequired) hooks.onInitRequired();
  else if (err.status === 409 && err.code === 'urls_required' && hooks.onURLsRequired) hooks.onURLsRequired();
  else if (err.status === 401 && hooks.onUnauthorized) hooks.onUnauthorized();
}

export const get = (path, opts) => request('GET', path, undefined, opts);
export const post = (path, body, opts) => request('POST', path, body ?? {}, opts);
export const put = (path, body, opts) => request('PUT', path, body ?? {}, opts);
export const del = (path, opts) => request('DELETE', path, undefined, opts);

// optional GETs a route the server may not have yet (scale sets, templates: other
// garrison versions); it returns null when the route answers 404.
export async function optional(path) {
  try {
    return await get(path);
  } catch (e) {
    if (e instanceof ApiError && e.notFound) return null;
    throw e;
  }
}

// initState tells whether the controller has had its first run, without credentials:
// GARM's UI asks an unknown route and looks for 409 init_required (§3.2).
export async function initState() {
  try {
    await request('GET', '/login', undefined, { anonymous: true, quiet: true });
    return 'ready';
  } catch (e) {
    if (e instanceof ApiError && e.status === 409 && e.code === 'init_required') return 'init_required';
    if (e instanceof ApiError && e.status === 0) return 'offline';
    return 'ready';
  }
}

export const enc = encodeURIComponent;

// entityKinds are the entity families of the API, by their path segment.
export const entityKinds = [
  { segment: 'repositories', type: 'repository', noun: 'repository', title: 'Repositories' },
  { segment: 'organizations', type: 'organization', noun: 'organization', title: 'Organizations' },
  { segment: 'enterprises', type: 'enterprise', noun: 'enterprise', title: 'Enterprises' },
];

export function kindOf(segment) {
  return entityKinds.find((k) => k.segment === segment);
}

// entityName is how the UI names an entity: owner/name for repositories.
export function entityName(e) {
  return e.owner ? `${e.owner}/${e.name}` : e.name;
}

// poolOwner names the entity that owns a pool, with the kind and id for links.
export function poolOwner(p) {
  if (p.repo_id) return { segment: 'repositories', id: p.repo_id, name: p.repo_name || p.repo_id, noun: 'repository' };
  if (p.org_id) return { segment: 'organizations', id: p.org_id, name: p.org_name || p.org_id, noun: 'organization' };
  if (p.enterprise_id) return { segment: 'enterprises', id: p.enterprise_id, name: p.enterprise_name || p.enterprise_id, noun: 'enterprise' };
  if (p.forge_instance_id) return { segment: 'forge-instances', id: p.forge_instance_id, name: p.forge_instance_id, noun: 'forge instance' };
  return null;
}

// runnerState is the one state the UI shows for a runner: the runner's own status while
// its instance runs, else the instance's status.
export function runnerState(inst) {
  if (inst.status === 'running' && inst.runner_status) return inst.runner_status;
  return inst.status || 'unknown';
}

// runnerStates are the states in lifecycle order, each with the group the dashboard
// counts it in.
export const runnerStates = [
  ['pending_create', 'starting'], ['creating', 'starting'], ['pending', 'starting'],
  ['installing', 'starting'], ['idle', 'idle'], ['active', 'active'], ['online', 'idle'],
  ['offline', 'trouble'], ['terminated', 'leaving'], ['pending_delete', 'leaving'],
  ['pending_force_delete', 'leaving'], ['deleting', 'leaving'], ['deleted', 'leaving'],
  ['failed', 'trouble'], ['error', 'trouble'], ['stopped', 'trouble'], ['unknown', 'trouble'],
];

export const stateGroups = ['starting', 'idle', 'active', 'leaving', 'trouble'];

export function stateGroup(state) {
  const s = runnerStates.find(([name]) => name === state);
  return s ? s[1] : 'trouble';
}
