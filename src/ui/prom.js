// prom.js — a parser for the Prometheus text exposition format that /metrics
// answers (version 0.0.4), and the arithmetic the Watch view needs on it:
// sums over labels, rates between two scrapes, quantiles from histograms.

// text -> Map(name -> [{labels: {k: v}, value: number}])
export function parseMetrics(text) {
  const out = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const sample = parseLine(line);
    if (sample === null) continue;
    let list = out.get(sample.name);
    if (list === undefined) out.set(sample.name, (list = []));
    list.push({ labels: sample.labels, value: sample.value });
  }
  return out;
}

function parseLine(line) {
  let i = 0;
  while (i < line.length && /[a-zA-Z0-9_:]/.test(line[i])) i++;
  const name = line.slice(0, i);
  if (name === '') return null;
  const labels = {};
  if (line[i] === '{') {
    i++;
    for (;;) {
      while (line[i] === ' ' || line[i] === ',') i++;
      if (line[i] === '}') { i++; break; }
      const eq = line.indexOf('=', i);
      if (eq < 0 || line[eq + 1] !== '"') return null;
      const key = line.slice(i, eq).trim();
      let j = eq + 2;
      let value = '';
      while (j < line.length && line[j] !== '"') {
        if (line[j] === '\\' && j + 1 < line.length) {
          const c = line[j + 1];
          value += c === 'n' ? '\n' : c;
          j += 2;
        } else {
          value += line[j++];
        }
      }
      if (j >= line.length) return null;
      labels[key] = value;
      i = j + 1;
    }
  }
  const rest = line.slice(i).trim().split(/\s+/);
  const value = parseValue(rest[0]);
  if (value === null) return null;
  return { name, labels, value };
}

function parseValue(s) {
  if (s === undefined) return null;
  if (s === '+Inf') return Infinity;
  if (s === '-Inf') return -Infinity;
  if (s === 'NaN') return NaN;
  const v = Number(s);
  return Number.isNaN(v) ? null : v;
}

// Sum of a family's samples grouped by one label (or by nothing: key '').
// filter(labels) may skip samples.
export function sumBy(metrics, name, label, filter) {
  const out = new Map();
  for (const s of metrics.get(name) || []) {
    if (filter && !filter(s.labels)) continue;
    const key = label ? s.labels[label] ?? '' : '';
    out.set(key, (out.get(key) || 0) + s.value);
  }
  return out;
}

// Per-second rates of the keys of two sumBy maps taken dt seconds apart. A
// counter that went down (a restart) counts from zero, and so does one that
// appeared since the previous scrape (the server makes a series on its first
// event: a route's first requests).
export function rates(prev, cur, dt) {
  const out = new Map();
  if (!prev || dt <= 0) return out;
  for (const [key, value] of cur) {
    const before = prev.get(key) ?? 0;
    const delta = value >= before ? value - before : value;
    out.set(key, delta / dt);
  }
  return out;
}

// Histogram buckets of one family grouped by a label: key -> [[le, count]]
// sorted by le (counts summed over the other labels).
export function bucketsBy(metrics, name, label) {
  const groups = new Map();
  for (const s of metrics.get(name) || []) {
    const key = label ? s.labels[label] ?? '' : '';
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    if (Number.isNaN(le)) continue;
    let g = groups.get(key);
    if (g === undefined) groups.set(key, (g = new Map()));
    g.set(le, (g.get(le) || 0) + s.value);
  }
  const out = new Map();
  for (const [key, g] of groups) out.set(key, [...g.entries()].sort((a, b) => a[0] - b[0]));
  return out;
}

// The q-quantile of the observations that arrived between two cumulative
// bucket lists (same bounds), by linear interpolation inside the bucket, as
// Prometheus' histogram_quantile does. null when nothing arrived.
export function quantileBetween(prev, cur, q) {
  if (!cur || cur.length === 0) return null;
  const before = new Map(prev || []);
  const counts = cur.map(([le, c]) => {
    const b = before.get(le) || 0;
    return [le, c >= b ? c - b : c];
  });
  const total = counts[counts.length - 1][1];
  if (!(total > 0)) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [le, c] of counts) {
    if (c >= rank) {
      if (le === Infinity) return lower; // beyond the last bound: its lower edge
      const inBucket = c - below;
      return inBucket > 0 ? lower + (le - lower) * ((rank - below) / inBucket) : le;
    }
    lower = le;
    below = c;
  }
  return lower;
}
