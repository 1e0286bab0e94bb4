import type { Page } from 'playwright-core';

/**
 * WCAG 2 contrast of the text a page shows: every visible element with text of its own, its
 * colour against the background it is drawn on (the first opaque background up the tree, with
 * translucent ones blended over it). AA asks 4.5:1, or 3:1 for large text (24 px, or 18.66 px
 * bold). Returns one line per failing element, at most 20.
 */
const CONTRAST_CHECK = `(() => {
  const parse = (c) => { const m = c.match(/rgba?\\(([^)]+)\\)/); if (!m) return [0, 0, 0, 0]; const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (top, below) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + below[i] * (1 - a)).concat(1); };
  const lum = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; } }
    let bg = [255, 255, 255, 1];
    for (const layer of layers.reverse()) bg = over(layer, bg);
    return bg;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim() !== '');
    if (!own || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || Number(style.opacity) === 0) continue;
    const bg = background(el);
    const fg = over(parse(style.color), bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    if (ratio < need) out.push(el.tagName.toLowerCase() + ' "' + el.textContent.trim().slice(0, 30) + '": ' + ratio.toFixed(2) + ':1 < ' + need + ':1 (' + style.color + ' on rgb(' + bg.slice(0, 3).map(Math.round).join(', ') + '))');
    if (out.length >= 20) break;
  }
  return out;
})()`;

export const contrastProblems = (page: Page): Promise<string[]> => page.evaluate(CONTRAST_CHECK) as Promise<string[]>;
