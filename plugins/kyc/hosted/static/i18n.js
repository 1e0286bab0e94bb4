// The page's words, from one catalogue per language (strings.<lang>.js: keys to sentences with
// `{name}` placeholders). The first of the browser's languages that has a catalogue is used; a key
// a translation lacks falls back to English. Adding a language: the catalogue file, its import
// and entry below, and its line in serve.ts's ASSETS (docs/kyc.md, "The hosted page").

import en from './strings.en.js';

export const CATALOGUES = { en };

function pickLanguage() {
  const langs = typeof navigator === 'undefined' ? [] : navigator.languages || [navigator.language];
  for (const lang of langs) {
    const base = String(lang).toLowerCase().split('-')[0];
    if (Object.hasOwn(CATALOGUES, base)) return base;
  }
  return 'en';
}

export const LANG = pickLanguage();
const strings = CATALOGUES[LANG];

export const hasString = (key) => Object.hasOwn(strings, key) || Object.hasOwn(en, key);

/** The sentence for `key` with its `{name}` placeholders filled from `params`. */
export function t(key, params = {}) {
  const text = Object.hasOwn(strings, key) ? strings[key] : Object.hasOwn(en, key) ? en[key] : undefined;
  // a missing key is a bug the tests catch (a console error); people see nothing rather than a key
  if (text === undefined) {
    console.error(`hosted page: no string ${key}`);
    return '';
  }
  return text.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Fills the page's text from the catalogue: `data-i18n` (text), `data-i18n-aria-label`, `data-i18n-alt`. */
export function fillPage(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const attr of ['aria-label', 'alt']) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
  }
  document.documentElement.lang = LANG;
  document.title = t('page.title');
}
