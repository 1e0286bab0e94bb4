// The organization's look on the page: its logo and its colour for primary buttons and accents.
// The colour is used only where it keeps WCAG AA contrast: as an accent (text, outlines) it must
// reach 4.5:1 on the page's backgrounds, and a text colour (near-white or near-black) must reach
// 4.5:1 on it for the primary buttons; each colour scheme (light, dark) falls back to its default
// when the brand colour cannot.

export const AA = 4.5;
const TEXT_ON = ['#ffffff', '#111111'];
/** the backgrounds an accent is drawn on (card, page), as app.css has them */
export const SCHEMES = {
  light: { accent: '#0b57d0', accentFg: '#ffffff', backgrounds: ['#ffffff', '#f6f8fa'] },
  dark: { accent: '#8ab4f8', accentFg: '#111111', backgrounds: ['#1d2127', '#111418'] },
};
const HEX = /^#[0-9a-f]{6}$/i;
const LOGO = /^data:image\/(png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;

/** WCAG relative luminance of `#rrggbb`. */
export function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The text colour with the most contrast on `hex`, or null when neither reaches AA. */
export function readableOn(hex) {
  const best = TEXT_ON.reduce((a, b) => (contrast(b, hex) > contrast(a, hex) ? b : a));
  return contrast(best, hex) >= AA ? best : null;
}

/** For each scheme, the accent and its text colour: the brand's when it keeps AA, else the default. */
export function palette(color) {
  const out = {};
  for (const [name, scheme] of Object.entries(SCHEMES)) {
    const fg = typeof color === 'string' && HEX.test(color) ? readableOn(color) : null;
    const fits = fg !== null && scheme.backgrounds.every((bg) => contrast(color, bg) >= AA);
    out[name] = fits ? { accent: color.toLowerCase(), accentFg: fg, brand: true } : { accent: scheme.accent, accentFg: scheme.accentFg, brand: false };
  }
  return out;
}

export const isLogo = (value) => typeof value === 'string' && value.length <= 400_000 && LOGO.test(value);

/**
 * Sets the custom properties app.css reads (CSSOM, which the page's CSP allows): the accents, and
 * the brand colour as it is for the header's stripe, which carries no text.
 */
export function applyColor(color, root = document.documentElement) {
  const p = palette(color);
  if (HEX.test(color)) root.style.setProperty('--brand', color);
  for (const [name, { accent, accentFg }] of Object.entries(p)) {
    root.style.setProperty(`--accent-${name}`, accent);
    root.style.setProperty(`--accent-fg-${name}`, accentFg);
  }
  return p;
}
