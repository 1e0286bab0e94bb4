// The throughput chart: received and delivered per bucket as two lines in an inline SVG, drawn
// here (no chart library); the same figures follow in a table for screen readers and keyboards.
import { h, s } from './dom.js';

const H = 240;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

function label(at, bucketSeconds) {
  const iso = new Date(at).toISOString();
  return bucketSeconds >= 3600 ? `${iso.slice(5, 10)} ${iso.slice(11, 13)}h` : iso.slice(11, 16);
}

/**
 * An SVG line chart of `points` ({at, received, delivered}), `W` user units wide: drawn for the
 * width it gets, so its labels keep their size on a phone. `titleText` names it for assistive technology.
 */
export function throughputChart(data, titleText, W = 720) {
  const points = data.points;
  const max = Math.max(1, ...points.map((p) => Math.max(p.received, p.delivered)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (points.length <= 1 ? 0 : (i / (points.length - 1)) * plotW);
  const y = (v) => PAD.top + plotH - (v / max) * plotH;
  const line = (key) => points.map((p, i) => `${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  const ticks = max < 4 ? Array.from({ length: max + 1 }, (_, i) => i) : [0, Math.round(max / 2), max];
  const every = Math.max(1, Math.ceil(points.length / Math.max(2, Math.floor(W / 110))));
  const desc = `${data.totals?.received ?? 0} received and ${data.totals?.delivered ?? 0} delivered from ${data.from} to ${data.to}, in buckets of ${data.bucketSeconds} seconds; peak ${max} per bucket.`;
  return s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': 'chart-title chart-desc', class: 'chart' },
    s('title', { id: 'chart-title' }, titleText),
    s('desc', { id: 'chart-desc' }, desc),
    ticks.map((v) => [s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v), class: 'grid' }), s('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, String(v))]),
    points.map((p, i) => (i % every === 0 ? s('text', { x: x(i), y: H - 8, 'text-anchor': i === 0 ? 'start' : 'middle', class: 'axis' }, label(p.at, data.bucketSeconds)) : null)),
    s('polyline', { points: line('received'), class: 'series received', fill: 'none' }),
    s('polyline', { points: line('delivered'), class: 'series delivered', fill: 'none' }),
  );
}

export function legend() {
  return h('p', { class: 'legend' }, h('span', { class: 'key received' }), 'received ', h('span', { class: 'key delivered' }), 'delivered');
}
