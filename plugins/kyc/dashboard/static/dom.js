// DOM building and formatting shared by the pages. Data from the API is only ever set as text
// (never as HTML), so nothing a customer or end user typed can inject markup.
import { h } from './dom-core.js';

export { facts, field, h, select, title } from './dom-core.js';

/** Unix ms or an ISO string as "2026-11-25 00:12:19 UTC", inside a <time>. */
export function time(value) {
  if (value === null || value === undefined || value === '') return '—';
  const d = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
  if (Number.isNaN(d.getTime())) return String(value);
  const iso = d.toISOString();
  return h('time', { datetime: iso }, `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`);
}

/** A long identifier shortened for tables; the full value stays in the title. */
export function short(text, keep = 10) {
  const s = String(text ?? '');
  return s.length <= keep * 2 + 1 ? s : `${s.slice(0, keep)}…${s.slice(-6)}`;
}

export function mono(text, { full = false } = {}) {
  if (text === null || text === undefined) return '—';
  return h('span', { class: full ? 'mono wrap' : 'mono', title: String(text) }, full ? String(text) : short(text));
}

/** A table with a caption; `cols` are [header, cell(row)] pairs. */
export function table(caption, cols, rows, { empty = 'None yet.' } = {}) {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': caption },
    h(
      'table',
      {},
      h('caption', {}, caption),
      h('thead', {}, h('tr', {}, cols.map(([name]) => h('th', { scope: 'col' }, name)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, cols.map(([name, cell]) => h('td', { 'data-label': name || null }, cell(r)))))),
    ),
  );
}

/** Newer / older links over `total` items shown `limit` a page; `at(p)` is page p's address. Nothing for one page. */
export function pager(label, page, limit, total, at) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages === 1) return null;
  return h('nav', { class: 'pager', 'aria-label': label }, page > 1 ? h('a', { href: at(page - 1) }, '← Newer') : null, h('span', {}, `Page ${page} of ${pages}`), page < pages ? h('a', { href: at(page + 1) }, 'Older →') : null);
}

const KINDS = { completed: 'ok', verified: 'ok', approved: 'ok', pending_review: 'wait', uploaded: 'wait', active: 'ok', success: 'ok', delivered: 'ok', passed: 'ok', issued: 'ok', failed: 'bad', rejected: 'bad', revoked: 'bad', disabled: 'bad', expired: 'muted', pending: 'wait', processing: 'wait' };

export function badge(text, kind = KINDS[text] ?? 'muted') {
  return h('span', { class: `badge ${kind}` }, text);
}

/** JSON as an indented block of text. */
export function json(value) {
  return h('pre', { class: 'json', tabindex: '0' }, JSON.stringify(value, null, 2));
}

/** An area for a form's outcome, read out by screen readers when it changes. */
export function status() {
  return h('p', { class: 'status', role: 'status', 'aria-live': 'polite' });
}

export function say(el, text, kind = 'info') {
  el.textContent = text;
  el.className = `status ${kind}`;
}

/**
 * Runs `work` for a form's submit with its button disabled, the outcome said in `out`; the error
 * an ApiError carries is the API's detail, shown as it is.
 */
export function onSubmit(form, out, work) {
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const buttons = [...form.querySelectorAll('button')];
    for (const b of buttons) b.disabled = true;
    say(out, 'Working…');
    try {
      const done = await work(new FormData(form));
      say(out, done ?? 'Done.', 'ok');
    } catch (err) {
      say(out, err instanceof Error ? err.message : String(err), 'error');
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  });
  return form;
}

/** A modal confirmation (<dialog>): resolves to the form's data, or null when cancelled. */
export function confirmDialog({ heading, text, confirm = 'Confirm', danger = false, fields = [] }) {
  return new Promise((resolve) => {
    const form = h('form', { method: 'dialog' }, h('h2', { id: 'dlg-title' }, heading), text ? h('p', {}, text) : null, fields,
      h('div', { class: 'actions' }, h('button', { type: 'submit', value: 'cancel', class: 'secondary', formnovalidate: true }, 'Cancel'), h('button', { type: 'submit', value: 'ok', class: danger ? 'danger' : '' }, confirm)));
    const dialog = h('dialog', { 'aria-labelledby': 'dlg-title' }, form);
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      const data = dialog.returnValue === 'ok' ? new FormData(form) : null;
      dialog.remove();
      resolve(data);
    });
    dialog.showModal();
  });
}

/** A button that copies `text` to the clipboard and says so. */
export function copyButton(text, label = 'Copy') {
  const b = h('button', { type: 'button', class: 'secondary' }, label);
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select the text to copy it';
    }
  });
  return b;
}
