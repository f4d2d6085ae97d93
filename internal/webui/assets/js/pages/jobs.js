// Jobs: the ledger with the reason each waiting job waits, and one job's timeline
// (queued → runner created → runner idle → started → completed).
//
// The REST API keeps when a job was recorded, started and completed. When its runner was
// created and became idle is known only while the runner exists (GET /instances): the
// page reads it from there, and remembers for the browser session when it saw the runner
// idle, since garrison deletes a runner once its job is done. A step that nobody saw is
// shown as "not recorded".

import { h, replace, fmtDuration, parseTime } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, jobBadge, dl, errorBox, timeline, messageLog, since, field, notice } from '../ui.js';
import { BASE } from '../router.js';
import { feed } from '../live.js';

const NIL_UUID = '00000000-0000-0000-0000-000000000000';
const MAX_ROWS = 200;

function waited(j, now) {
  const q = parseTime(j.created_at);
  if (!q) return null;
  const s = parseTime(j.started_at);
  return (s ? s.getTime() : now) - q.getTime();
}

const repoOf = (j) => [j.repository_owner, j.repository_name].filter(Boolean).join('/');

export function jobsPage({ query }) {
  const filter = field({ label: 'Show', name: 'action', type: 'select', value: query.get('action') || '',
    options: [['', 'All jobs'], ['queued', 'Waiting'], ['in_progress', 'Running'], ['completed', 'Completed']] });
  const body = h('div', {});
  const node = h('div', {}, pageHeader('Jobs'), h('div', { class: 'filters' }, filter), body);
  async function refresh() {
    try {
      const jobs = (await api.get('/jobs')) || [];
      const a = filter.control.value;
      const rows = jobs.filter((j) => !a || j.action === a).reverse();
      const now = Date.now();
      replace(body,
        rows.length > MAX_ROWS ? notice(`Showing the newest ${MAX_ROWS} of ${rows.length} jobs.`) : null,
        table({
          caption: { text: 'Jobs, newest first', hidden: true },
          rows: rows.slice(0, MAX_ROWS),
          empty: a ? 'No job in that state.' : 'No job recorded yet. Jobs appear when a forge sends a workflow_job webhook that a pool can serve.',
          columns: [
            { label: 'Job', cell: (j) => link(`${BASE}jobs/${j.id}`, `#${j.id} ${j.name || ''}`, { 'data-key': `job-${j.id}` }) },
            { label: 'State', cell: (j) => jobBadge(j) },
            { label: 'Repository', cell: (j) => repoOf(j) || '—', class: 'hide-narrow' },
            { label: 'Labels', cell: (j) => (j.labels || []).join(', '), class: 'hide-narrow' },
            { label: 'Runner', cell: (j) => j.runner_name || '—', class: 'hide-narrow' },
            { label: 'Waited', numeric: true, cell: (j) => fmtDuration(waited(j, now)) },
            { label: 'Why it waits', cell: (j) => (j.action === 'queued' ? (j.reason || h('span', { class: 'muted' }, 'a runner is on its way')) : '') },
          ],
        }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  filter.control.addEventListener('change', () => {
    const v = filter.control.value;
    history.replaceState(null, '', v ? `${BASE}jobs?action=${encodeURIComponent(v)}` : `${BASE}jobs`);
    refresh();
  });
  return { title: 'Jobs', node, refresh, types: ['job'] };
}

// memKey is where the page remembers, for the browser session, what it saw of a job's
// runner: garrison deletes the runner once the job is done, and with it these times.
const memKey = (jobID) => `garrison.job-runner.${jobID}`;

// remember merges what the runner shows now into what the page saw before and returns
// it: {name, created_at, idle_at, messages}. idle_at is the runner's last update while
// its status is idle, i.e. when it became idle.
export function remember(jobID, runner) {
  let m = {};
  try { m = JSON.parse(sessionStorage.getItem(memKey(jobID)) || '{}') || {}; } catch { m = {}; }
  if (runner) {
    m.name = runner.name;
    m.created_at = runner.created_at;
    if (runner.runner_status === 'idle' && !m.idle_at) m.idle_at = runner.updated_at;
    if (runner.status_messages && runner.status_messages.length) m.messages = runner.status_messages.slice(-30);
  }
  try { sessionStorage.setItem(memKey(jobID), JSON.stringify(m)); } catch { /* storage full or off: keep going */ }
  return m;
}

// findRunner returns the runner bound to the job (by the instance id that claimed it, or
// by the runner name the forge reported), with its status messages, or null.
async function findRunner(job) {
  const instances = (await api.get('/instances')) || [];
  const locked = job.locked_by && job.locked_by !== NIL_UUID ? job.locked_by : '';
  const hit = instances.find((i) => (locked && i.id === locked) || (job.runner_name && i.name === job.runner_name));
  if (!hit) return null;
  try {
    return await api.get(`/instances/${api.enc(hit.name)}`, { quiet: true });
  } catch {
    return hit;
  }
}

// jobSteps builds the five steps of a job's timeline from the job, its runner when it
// still exists, and what the page remembers of the runner (see remember).
export function jobSteps(job, runner, mem) {
  const started = parseTime(job.started_at);
  const completed = parseTime(job.completed_at);
  const rank = { queued: 1, in_progress: 2, completed: 3 }[job.action] || 0;
  const created = runner ? runner.created_at : mem.created_at;
  const name = (runner && runner.name) || mem.name || job.runner_name;
  const past = ['idle', 'active', 'terminated'].includes(runner && runner.runner_status);
  const steps = [
    { label: 'Queued', time: job.created_at, done: true,
      detail: job.action === 'queued' && job.reason ? `Waiting: ${job.reason}` : null },
    { label: 'Runner created', time: created, done: Boolean(created) || rank >= 2, unknown: !created,
      detail: runner ? link(`${BASE}runners/${encodeURIComponent(runner.name)}`, runner.name) : name },
    { label: 'Runner idle', time: mem.idle_at, done: Boolean(mem.idle_at) || rank >= 2 || past,
      unknown: !mem.idle_at },
    { label: 'Started', time: started, done: rank >= 2 },
    { label: 'Completed', time: completed, done: rank >= 3, detail: job.conclusion ? `Conclusion: ${job.conclusion}` : null },
  ];
  let currentSet = false;
  return steps.map((s) => {
    let state;
    if (s.done) state = s.time ? 'done' : (s.unknown ? 'skipped' : 'done');
    else if (!currentSet && rank < 3) { state = 'current'; currentSet = true; } else state = 'pending';
    return { label: s.label, time: state === 'skipped' ? null : s.time, state, detail: state === 'skipped' ? h('span', {}, s.detail || '', s.detail ? ' — ' : '', 'time not recorded') : s.detail };
  });
}

export function jobPage({ params }) {
  const id = Number(params.id);
  const head = pageHeader(`Job #${params.id}`);
  const body = h('div', {});
  const node = h('div', {}, head, body);
  const page = { title: `Job #${params.id}`, node, types: ['job', 'instance'] };
  let done = false;
  let current = null; // the job as last read
  // While the job runs, the page looks every second, so that it sees its runner's steps.
  page.every = () => (done ? 30000 : 1000);
  // Instance events carry the runner as it was at that moment: an update to idle says
  // when the job's runner became idle, even if it was busy again before the page looked.
  page.dispose = feed.subscribe(['instance'], (ev) => {
    const p = ev.payload || {};
    if (!current || ev.operation === 'delete') return;
    const mine = (current.locked_by && current.locked_by !== NIL_UUID && p.id === current.locked_by)
      || (current.runner_name && p.name === current.runner_name);
    if (mine) remember(current.id, p);
  });
  page.refresh = async () => {
    let job; let runner;
    try {
      const jobs = (await api.get('/jobs')) || [];
      job = jobs.find((j) => j.id === id);
      current = job || null;
      if (!job) {
        replace(body, h('p', {}, 'There is no job with this id. ', link(`${BASE}jobs`, 'All jobs'), '.'));
        return;
      }
      runner = await findRunner(job);
    } catch (e) {
      replace(body, errorBox(e));
      return;
    }
    const mem = remember(job.id, runner);
    done = job.action === 'completed';
    const messages = runner && runner.status_messages ? runner.status_messages : mem.messages;
    head.querySelector('h1').textContent = `Job #${job.id} ${job.name || ''}`.trim();
    const now = Date.now();
    replace(body,
      job.action === 'queued' ? h('div', { class: 'notice notice-info', role: 'status' },
        h('strong', {}, 'Waiting: '), job.reason || 'a runner is on its way.') : null,
      section('Timeline', timeline(jobSteps(job, runner, mem), `Timeline of job ${job.id}`),
        done && (!mem.created_at || !mem.idle_at) ? h('p', { class: 'help' },
          'garrison removes a runner when its job is done; a runner step this browser did not see has no recorded time.') : null),
      section('Job', dl([
        ['State', jobBadge(job)],
        ['Repository', repoOf(job)],
        ['Labels', (job.labels || []).join(', ')],
        ['Waited', fmtDuration(waited(job, now))],
        ['Ran for', job.started_at && parseTime(job.started_at) ? fmtDuration((parseTime(job.completed_at) || new Date(now)) - parseTime(job.started_at)) : ''],
        ['Runner', job.runner_name || ''],
        ['Forge job id', job.workflow_job_id ? String(job.workflow_job_id) : ''],
        ['Run', job.workflow_run_url ? h('a', { href: job.workflow_run_url, rel: 'noreferrer', target: '_blank' }, job.workflow_run_url) : ''],
        ['Recorded', fmtDuration(since(job.created_at, now)) + ' ago'],
      ])),
      messages && messages.length ? section(`Runner ${runner ? runner.name : mem.name}: status messages`,
        runner ? null : h('p', { class: 'help' }, 'As this browser last saw them: the runner is gone.'),
        messageLog(messages, `Status messages of ${runner ? runner.name : mem.name}`)) : null);
  };
  return page;
}
