// DOM building shared by the pages. API data is only ever set as text (never as HTML), so a DID,
// a reason or a delivery-log line cannot inject markup.
import { append, h } from './dom-core.js';

export { append, facts, field, h, select, title } from './dom-core.js';

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  append(el, children);
  return el;
}

/** An ISO time as "2026-11-25 00:12:19 UTC" inside a <time>; null shows a dash. */
export function time(iso) {
  if (iso === null || iso === undefined) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const text = d.toISOString();
  return h('time', { datetime: text }, `${text.slice(0, 10)} ${text.slice(11, 19)} UTC`);
}

/** A long identifier shortened for tables; the full value stays in the title. */
export function short(text, keep = 14) {
  if (text === null || text === undefined) return '—';
  const t = String(text);
  return t.length <= keep * 2 + 1 ? h('span', { class: 'mono' }, t) : h('span', { class: 'mono', title: t }, `${t.slice(0, keep)}…${t.slice(-8)}`);
}

export function badge(text, kind = 'neutral') {
  return h('span', { class: `badge ${kind}` }, text);
}

const STATE_KIND = { ok: 'ok', degraded: 'bad', granted: 'ok', acknowledged: 'ok', delivered: 'ok', 'live-delivered': 'ok', sent: 'ok', requested: 'wait', queued: 'wait', pending: 'wait', denied: 'bad', revoked: 'bad', failed: 'bad', expired: 'bad', error: 'bad', warn: 'wait', info: 'neutral' };
export function state(text) {
  return badge(text, STATE_KIND[text] ?? 'neutral');
}

/** Figures as a grid of small cards. */
export function cards(pairs) {
  return h('dl', { class: 'cards' }, pairs.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v ?? '—'))));
}

/** A table with a caption; `cols` are [header, cell(row)] pairs. Scrolls sideways on a narrow screen. */
export function table(caption, cols, rows, { empty = 'None yet.', id } = {}) {
  if (rows.length === 0) return h('p', { class: 'empty', id }, empty);
  return h(
    'div',
    { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      id ? { id } : {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, cols.map(([name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, cols.map(([, cell]) => h('td', {}, cell(r)))))),
    ),
  );
}

/** A status line for a form's outcome, announced to screen readers. */
export function outcome() {
  return h('p', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
}

/** Shows `message` in an outcome line as a success or an error. */
export function say(line, message, ok = true) {
  line.textContent = message;
  line.className = `outcome ${ok ? 'ok' : 'bad'}`;
}

/**
 * A form whose submit runs `action(form data)` with the button disabled meanwhile; its answer
 * (a string) or error goes to the form's outcome line. The browser never posts it anywhere.
 */
export function form(attrs, children, action) {
  const line = outcome();
  const el = h('form', attrs, children, line);
  el.addEventListener('submit', async (e) => {
    e.preventDefault();
    const buttons = [...el.querySelectorAll('button')];
    for (const b of buttons) b.disabled = true;
    try {
      const message = await action(new FormData(el), el);
      if (message) say(line, message, true);
    } catch (err) {
      say(line, err instanceof Error ? err.message : String(err), false);
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  });
  return el;
}

/** A button that runs `action` once per click, disabled meanwhile; a failure is shown beside it. */
export function actionButton(attrs, text, action) {
  return h('button', {
    type: 'button',
    ...attrs,
    onclick: async (e) => {
      const button = e.currentTarget;
      button.disabled = true;
      button.parentElement?.querySelector(':scope > .outcome.bad')?.remove();
      try {
        await action();
      } catch (err) {
        button.disabled = false;
        button.after(h('span', { class: 'outcome bad', role: 'alert' }, err instanceof Error ? err.message : String(err)));
      }
    },
  }, text);
}

/** A search form whose submit puts its non-empty fields in the query of the hash route `route`. */
export function filters(label, route, fields) {
  const f = h('form', { class: 'filters', role: 'search', 'aria-label': label }, fields, h('button', { type: 'submit' }, 'Filter'));
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(f)) if (String(v).trim()) q.set(k, String(v).trim());
    location.hash = `${route}${q.size ? `?${q}` : ''}`;
  });
  return f;
}

/** A note saying why a control is missing: the credential's scope cannot do it. */
export function scopeNote(what, needs) {
  return h('p', { class: 'note' }, `${what} needs an API key of scope ${needs} or a session; this credential cannot do it.`);
}
