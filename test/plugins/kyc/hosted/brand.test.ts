import t from 'tap';
import { packageRoot } from '../../../../node/cli/package-root.js';

/**
 * The organization's colour on the hosted page (static/brand.js): used only where it keeps WCAG AA
 * contrast — as an accent on the page's backgrounds and under the text of a primary button — in
 * each colour scheme, else that scheme's default; and only a PNG or JPEG data URI is a logo.
 */

type Palette = Record<'light' | 'dark', { accent: string; accentFg: string; brand: boolean }>;
const brand = (await import(new URL('plugins/kyc/hosted/static/brand.js', `file://${packageRoot()}/`).href)) as {
  AA: number;
  SCHEMES: Record<'light' | 'dark', { accent: string; accentFg: string; backgrounds: string[] }>;
  contrast(a: string, b: string): number;
  readableOn(hex: string): string | null;
  palette(color: unknown): Palette;
  isLogo(value: unknown): boolean;
};

t.test('contrast ratios are WCAG 2 ratios', async (t) => {
  t.equal(brand.contrast('#000000', '#ffffff'), 21);
  t.equal(brand.contrast('#ffffff', '#ffffff'), 1);
  t.equal(brand.contrast('#777777', '#ffffff').toFixed(2), '4.48', 'the well-known grey just under AA');
});

t.test('the defaults themselves keep AA in both schemes', async (t) => {
  for (const [name, s] of Object.entries(brand.SCHEMES)) {
    t.ok(brand.contrast(s.accent, s.accentFg) >= brand.AA, `${name}: button text on the accent`);
    for (const bg of s.backgrounds) t.ok(brand.contrast(s.accent, bg) >= brand.AA, `${name}: accent on ${bg}`);
  }
});

t.test('a dark brand colour is used in the light scheme with white text; the dark scheme keeps its default', async (t) => {
  const p = brand.palette('#6B1FA8');
  t.same(p.light, { accent: '#6b1fa8', accentFg: '#ffffff', brand: true });
  t.same(p.dark, { accent: brand.SCHEMES.dark.accent, accentFg: brand.SCHEMES.dark.accentFg, brand: false });
});

t.test('a light brand colour fits the dark scheme with dark text, and not the light one', async (t) => {
  const p = brand.palette('#ffd166');
  t.equal(p.light.brand, false);
  t.equal(p.light.accent, brand.SCHEMES.light.accent);
  t.same(p.dark, { accent: '#ffd166', accentFg: '#111111', brand: true });
});

t.test('a mid colour that cannot reach AA anywhere falls back to the defaults', async (t) => {
  // #e0301e reaches 4.5:1 on the white card but not on the page's grey background
  for (const color of ['#7a7a7a', '#e0301e', '#1e88e5']) {
    const p = brand.palette(color);
    t.notOk(p.light.brand || p.dark.brand, color);
  }
  t.equal(brand.readableOn('#7a7a7a'), null, 'mid grey: neither white nor near-black text reaches 4.5:1');
  for (const bad of [undefined, '', 'red', '#fff', '#12345g', 'url(x)', 42]) t.notOk(brand.palette(bad).light.brand, String(bad));
});

t.test('every brand accent the palette accepts keeps AA on every background and under its text', async (t) => {
  for (let i = 0; i < 4096; i += 7) {
    const hex = `#${[i >> 8, (i >> 4) & 15, i & 15].map((n) => (n * 17).toString(16).padStart(2, '0')).join('')}`;
    const p = brand.palette(hex);
    for (const name of ['light', 'dark'] as const) {
      const s = p[name];
      if (!s.brand) continue;
      if (brand.contrast(s.accent, s.accentFg) < brand.AA || brand.SCHEMES[name].backgrounds.some((bg) => brand.contrast(s.accent, bg) < brand.AA)) t.fail(`${hex} in ${name}`);
    }
  }
  t.pass('checked 586 colours');
});

t.test('a logo is a PNG or JPEG data URI', async (t) => {
  t.ok(brand.isLogo('data:image/png;base64,iVBORw0KGgo='));
  t.ok(brand.isLogo('data:image/jpeg;base64,/9j/4AAQ'));
  for (const bad of ['data:image/svg+xml;base64,PHN2Zz4=', 'https://evil.example/logo.png', 'data:image/png;base64,"><script>', 'javascript:alert(1)', undefined]) t.notOk(brand.isLogo(bad), String(bad));
});
