// The queue-time chart: every job that started in the last hour, placed by when it
// started (x) and how long it waited from being recorded as queued to starting (y), with
// the median and 95th percentile as lines. The SVG is drawn with attributes only (no
// inline styles, which the Content-Security-Policy forbids) and carries a text summary
// for screen readers; the same numbers are shown as text beside it.

import { h, parseTime, fmtDuration, fmtClock } from './dom.js';

const W = 640;
const H = 220;
const PAD = { left: 56, right: 12, top: 12, bottom: 34 };

// queueTimes returns [{job, started: Date, ms}] for jobs started within windowMs of now.
export function queueTimes(jobs, now = Date.now(), windowMs = 3600 * 1000) {
  const out = [];
  for (const j of jobs) {
    const queued = parseTime(j.created_at);
    const started = parseTime(j.started_at);
    if (!queued || !started) continue;
    if (now - started.getTime() > windowMs || started.getTime() > now + 60000) continue;
    out.push({ job: j, started, ms: Math.max(0, started.getTime() - queued.getTime()) });
  }
  out.sort((a, b) => a.started - b.started);
  return out;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

// stats summarises queue times: count, p50, p95, max (milliseconds).
export function stats(points) {
  const ms = points.map((p) => p.ms).sort((a, b) => a - b);
  return { count: ms.length, p50: percentile(ms, 50), p95: percentile(ms, 95), max: ms.length ? ms[ms.length - 1] : null };
}

// niceMax rounds a maximum up to 1, 2 or 5 times a power of ten.
function niceMax(v) {
  if (v <= 0) return 1000;
  const exp = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (v <= m * exp) return m * exp;
  return 10 * exp;
}

function svgText(x, y, text, anchor = 'middle', cls = 'axis-label') {
  return h('svg:text', { x, y, 'text-anchor': anchor, class: cls }, text);
}

export function queueChart(jobs, now = Date.now()) {
  const points = queueTimes(jobs, now);
  const st = stats(points);
  const summary = st.count === 0
    ? 'No job started in the last hour.'
    : `${st.count} job${st.count === 1 ? '' : 's'} started in the last hour; median wait ${fmtDuration(st.p50)}, 95th percentile ${fmtDuration(st.p95)}, longest ${fmtDuration(st.max)}.`;
  const start = now - 3600 * 1000;
  const yMax = niceMax(st.max || 0);
  const iw = W - PAD.left - PAD.right;
  const ih = H - PAD.top - PAD.bottom;
  const x = (t) => PAD.left + ((t - start) / (now - start)) * iw;
  const y = (ms) => PAD.top + ih - (ms / yMax) * ih;

  const grid = [];
  for (let i = 0; i <= 4; i++) {
    const v = (yMax / 4) * i;
    grid.push(h('svg:line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }));
    grid.push(svgText(PAD.left - 6, y(v) + 4, fmtDuration(v), 'end'));
  }
  for (let m = 0; m <= 60; m += 15) {
    const t = start + m * 60000;
    grid.push(svgText(x(t), H - PAD.bottom + 16, m === 60 ? 'now' : `−${60 - m} min`));
  }
  grid.push(svgText(PAD.left + iw / 2, H - 4, 'when the job started', 'middle', 'axis-title'));

  const lines = [];
  if (st.count > 0) {
    // The median is labelled on the left, the 95th percentile on the right, so the two
    // labels never cover each other when the values are close.
    for (const [v, cls, label, lx, anchor] of [[st.p50, 'p50', 'median', PAD.left + 4, 'start'], [st.p95, 'p95', 'p95', W - PAD.right - 2, 'end']]) {
      lines.push(h('svg:line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: `pline ${cls}` }));
      lines.push(svgText(lx, y(v) - 3, label, anchor, `plabel ${cls}`));
    }
  }
  const dots = points.map((p) => h('svg:circle', { cx: x(p.started.getTime()), cy: y(p.ms), r: 4, class: 'dot' },
    h('svg:title', {}, `job ${p.job.id}: waited ${fmtDuration(p.ms)}, started ${fmtClock(p.started)}`)));

  const svg = h('svg:svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', 'aria-label': `Queue time over the last hour. ${summary}` },
    grid, lines, dots);
  const rows = points.slice(-50).reverse().map((p) => h('tr', {},
    h('th', { scope: 'row' }, `#${p.job.id} ${p.job.name || ''}`), h('td', {}, fmtClock(p.started)), h('td', { class: 'num' }, fmtDuration(p.ms))));
  const data = st.count === 0 ? null : h('details', { class: 'chart-data' }, h('summary', {}, 'Show the numbers'),
    h('div', { class: 'table-wrap' }, h('table', {},
      h('caption', {}, 'Jobs started in the last hour (newest 50)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Job'), h('th', { scope: 'col' }, 'Started'), h('th', { scope: 'col', class: 'num' }, 'Waited'))),
      h('tbody', {}, rows))));
  return h('figure', { class: 'chart-figure' }, svg,
    h('figcaption', {}, summary, ' Wait = from the job being recorded as queued to the forge reporting it started.'), data);
}
