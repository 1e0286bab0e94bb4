/**
 * A line chart as a standalone SVG, written by hand so that a bench can draw its own figures with
 * no plotting dependency: one shared x axis and panels stacked under it, each with its own y axis
 * (linear from 0, or logarithmic) and legend.
 */

export interface Axis {
  label: string;
  log?: boolean;
  /** tick labels; plain numbers by default */
  format?: (v: number) => string;
}

export interface Series {
  name: string;
  color: string;
  points: Array<[number, number]>;
  dashed?: boolean;
}

export interface Panel {
  y: Axis;
  series: Series[];
}

export interface Chart {
  title: string;
  subtitle?: string;
  x: Axis;
  panels: Panel[];
  width?: number;
  height?: number;
}

const MARGIN = { left: 80, right: 30, top: 60, bottom: 50, gap: 45 };

export function lineChartSvg(chart: Chart): string {
  const width = chart.width ?? 900;
  const height = chart.height ?? 600;
  const plotW = width - MARGIN.left - MARGIN.right;
  const panelH = (height - MARGIN.top - MARGIN.bottom - MARGIN.gap * (chart.panels.length - 1)) / chart.panels.length;
  const xs = chart.panels.flatMap((p) => p.series.flatMap((s) => s.points.map(([x]) => x)));
  const xScale = scale(chart.x, xs, MARGIN.left, MARGIN.left + plotW);
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    text(width / 2, 22, chart.title, 'middle', 'font-size="16" font-weight="bold"'),
  ];
  if (chart.subtitle) out.push(text(width / 2, 40, chart.subtitle, 'middle', 'fill="#555"'));
  chart.panels.forEach((panel, i) => {
    const top = MARGIN.top + i * (panelH + MARGIN.gap);
    const bottom = top + panelH;
    const ys = panel.series.flatMap((s) => s.points.map(([, y]) => y));
    const yScale = scale(panel.y, ys, bottom, top);
    out.push(`<rect x="${MARGIN.left}" y="${f(top)}" width="${plotW}" height="${f(panelH)}" fill="none" stroke="#999"/>`);
    for (const t of yScale.ticks) {
      const y = yScale.at(t);
      out.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${f(y)}" y2="${f(y)}" stroke="#e4e4e4"/>`);
      out.push(text(MARGIN.left - 6, y + 4, (panel.y.format ?? String)(t), 'end'));
    }
    out.push(text(18, (top + bottom) / 2, panel.y.label, 'middle', `transform="rotate(-90 18 ${f((top + bottom) / 2)})"`));
    for (const t of xScale.ticks) {
      const x = xScale.at(t);
      out.push(`<line x1="${f(x)}" x2="${f(x)}" y1="${f(top)}" y2="${f(bottom)}" stroke="#e4e4e4"/>`);
      out.push(text(x, bottom + 16, (chart.x.format ?? String)(t), 'middle'));
    }
    panel.series.forEach((s, j) => {
      const pts = s.points.filter(([x, y]) => xScale.fits(x) && yScale.fits(y)).map(([x, y]) => [xScale.at(x), yScale.at(y)] as const);
      const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2"${dash} points="${pts.map(([x, y]) => `${f(x)},${f(y)}`).join(' ')}"/>`);
      for (const [x, y] of pts) out.push(`<circle cx="${f(x)}" cy="${f(y)}" r="3.5" fill="${s.color}"/>`);
      const ly = top + 16 + j * 18;
      out.push(`<line x1="${MARGIN.left + 12}" x2="${MARGIN.left + 40}" y1="${f(ly - 4)}" y2="${f(ly - 4)}" stroke="${s.color}" stroke-width="2"${dash}/>`);
      out.push(text(MARGIN.left + 46, ly, s.name, 'start'));
    });
  });
  out.push(text(MARGIN.left + plotW / 2, height - 12, chart.x.label, 'middle'));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

interface Scale {
  at(v: number): number;
  fits(v: number): boolean;
  ticks: number[];
}

/** Maps the values' range onto [from, to]: linear from 0 with round steps, or log over whole 1-2-5 ticks. */
function scale(axis: Axis, values: number[], from: number, to: number): Scale {
  const fits = (v: number) => Number.isFinite(v) && (!axis.log || v > 0);
  const ok = values.filter(fits);
  const max = ok.length > 0 ? Math.max(...ok) : 1;
  if (!axis.log) {
    const step = niceStep(max / 5);
    const top = Math.max(step, Math.ceil(max / step) * step);
    const ticks = Array.from({ length: Math.round(top / step) + 1 }, (_, i) => i * step);
    return { at: (v) => from + ((to - from) * v) / top, fits, ticks };
  }
  const min = ok.length > 0 ? Math.min(...ok) : 1;
  const candidates = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) for (const m of [1, 2, 5]) candidates.push(m * 10 ** e);
  const lo = Math.max(...candidates.filter((c) => c <= min));
  const hi = Math.min(...candidates.filter((c) => c >= max));
  const span = Math.log10(hi) - Math.log10(lo) || 1;
  return { at: (v) => from + ((to - from) * (Math.log10(v) - Math.log10(lo))) / span, fits, ticks: candidates.filter((c) => c >= lo && c <= hi) };
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw > 0 ? raw : 1));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw)!;
}

const f = (v: number) => String(Math.round(v * 10) / 10);
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const text = (x: number, y: number, s: string, anchor: string, extra = '') => `<text x="${f(x)}" y="${f(y)}" text-anchor="${anchor}"${extra ? ' ' + extra : ''}>${esc(s)}</text>`;
