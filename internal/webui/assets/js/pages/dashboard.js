// The dashboard: runners per state for every pool and scale set, the jobs waiting with
// the reason each waits, and the queue time of the last hour.

import { h, replace, fmtDuration } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, section, table, link, errorBox, since } from '../ui.js';
import { queueChart } from '../chart.js';
import { BASE } from '../router.js';

const groupLabels = { starting: 'Starting', idle: 'Idle', active: 'Busy', leaving: 'Leaving', trouble: 'Trouble' };

// countStates counts the runners of each pool (or scale set) per state group.
export function countStates(instances) {
  const by = new Map();
  for (const inst of instances) {
    const key = inst.pool_id ? `pool:${inst.pool_id}` : `ss:${inst.scale_set_id}`;
    if (!by.has(key)) by.set(key, Object.fromEntries(api.stateGroups.map((g) => [g, 0])));
    by.get(key)[api.stateGroup(api.runnerState(inst))] += 1;
  }
  return by;
}

function capacityBar(counts, max) {
  const total = api.stateGroups.reduce((n, g) => n + counts[g], 0);
  const scale = Math.max(max || 0, total, 1);
  const bar = h('div', { class: 'bar', 'aria-hidden': 'true' });
  for (const g of api.stateGroups) {
    if (!counts[g]) continue;
    const seg = h('span', { class: ['bar-seg', `badge-${g}`], title: `${groupLabels[g]}: ${counts[g]}` });
    seg.style.width = `${(counts[g] / scale) * 100}%`;
    bar.appendChild(seg);
  }
  return bar;
}

function poolLabel(p) {
  const owner = api.poolOwner(p);
  const tags = (p.tags || []).map((t) => t.name).join(', ');
  return h('span', {}, link(`${BASE}pools/${p.id}`, `${owner ? owner.name : 'pool'} · ${p.flavor || p.image || p.id.slice(0, 8)}`, { 'data-key': `pool-${p.id}` }),
    h('span', { class: 'muted small block' }, tags));
}

function capacityTable(pools, scalesets, instances) {
  const counts = countStates(instances);
  const zero = Object.fromEntries(api.stateGroups.map((g) => [g, 0]));
  const rows = [
    ...pools.map((p) => ({ kind: 'Pool', label: poolLabel(p), enabled: p.enabled, max: p.max_runners, counts: counts.get(`pool:${p.id}`) || zero })),
    ...(scalesets || []).map((s) => ({ kind: 'Scale set', label: link(`${BASE}scalesets/${s.id}`, s.name, { 'data-key': `ss-${s.id}` }), enabled: s.enabled, max: s.max_runners, counts: counts.get(`ss:${s.id}`) || zero })),
  ];
  const columns = [
    { label: 'Pool or scale set', cell: (r) => r.label },
    { label: 'Kind', cell: (r) => r.kind, class: 'hide-narrow' },
    { label: 'Enabled', cell: (r) => (r.enabled ? 'yes' : 'no') },
    ...api.stateGroups.map((g) => ({ label: groupLabels[g], numeric: true, cell: (r) => String(r.counts[g]) })),
    { label: 'Max', numeric: true, cell: (r) => String(r.max ?? '—') },
    { label: 'Runners', cell: (r) => capacityBar(r.counts, r.max), class: 'bar-cell' },
  ];
  return table({ caption: { text: 'Runners per state', hidden: true }, columns, rows,
    empty: h('span', {}, 'No pool yet. ', link(`${BASE}pools/new`, 'Create a pool'), '.') });
}

function waitingTable(jobs) {
  const waiting = jobs.filter((j) => j.action === 'queued');
  const now = Date.now();
  return table({
    caption: { text: 'Jobs waiting', hidden: true },
    rows: waiting,
    empty: 'No job is waiting.',
    columns: [
      { label: 'Job', cell: (j) => link(`${BASE}jobs/${j.id}`, `#${j.id} ${j.name || ''}`, { 'data-key': `job-${j.id}` }) },
      { label: 'Repository', cell: (j) => [j.repository_owner, j.repository_name].filter(Boolean).join('/') || '—', class: 'hide-narrow' },
      { label: 'Labels', cell: (j) => (j.labels || []).join(', '), class: 'hide-narrow' },
      { label: 'Waiting for', cell: (j) => fmtDuration(since(j.created_at, now)) },
      { label: 'Why it waits', cell: (j) => j.reason || h('span', { class: 'muted' }, 'a runner is on its way') },
    ],
  });
}

function summary(pools, instances, jobs) {
  const byGroup = Object.fromEntries(api.stateGroups.map((g) => [g, 0]));
  for (const i of instances) byGroup[api.stateGroup(api.runnerState(i))] += 1;
  const items = [
    ['Pools', pools.length, `${BASE}pools`],
    ['Runners', instances.length, `${BASE}runners`],
    ['Idle runners', byGroup.idle, `${BASE}runners`],
    ['Busy runners', byGroup.active, `${BASE}runners`],
    ['Jobs waiting', jobs.filter((j) => j.action === 'queued').length, `${BASE}jobs`],
    ['Jobs running', jobs.filter((j) => j.action === 'in_progress').length, `${BASE}jobs`],
  ];
  return h('ul', { class: 'stats', 'aria-label': 'Summary' }, items.map(([label, n, href]) =>
    h('li', {}, h('a', { href, class: 'stat' }, h('span', { class: 'stat-n' }, String(n)), h('span', { class: 'stat-l' }, label)))));
}

export function dashboardPage() {
  const body = h('div', { class: 'dashboard' });
  const node = h('div', {}, pageHeader('Dashboard'), body);
  async function refresh() {
    try {
      const [pools, instances, jobs, scalesets] = await Promise.all([
        api.get('/pools'), api.get('/instances'), api.get('/jobs'), api.optional('/scalesets'),
      ]);
      replace(body,
        summary(pools || [], instances || [], jobs || []),
        section(scalesets ? 'Pools and scale sets' : 'Pools', capacityTable(pools || [], scalesets, instances || [])),
        section('Jobs waiting', waitingTable(jobs || [])),
        section('Queue time, last hour', queueChart(jobs || [])));
    } catch (e) {
      replace(body, errorBox(e));
    }
  }
  return { title: 'Dashboard', node, refresh, types: ['pool', 'instance', 'job', 'scaleset'] };
}

