// The DOM building every plugin's browser app shares (the explorer, the consoles), served by each
// app beside its own modules (plugins/common/static-assets.ts `shared`). Data from an API is only
// ever set as text, never as HTML, so nothing a user or a chain record holds can inject markup.

/** h('a', {href: '#/'}, 'home'): an element with attributes (false/null skipped) and children. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') el.className = v;
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

/** Appends children (nested arrays flattened; null, undefined and false skipped; others as text). */
export function append(el, children) {
  for (const c of [children].flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** The page's heading, focusable so that navigation can move the focus to it. */
export function title(text) {
  return h('h1', { tabindex: '-1' }, text);
}

/** A definition list from [term, value] pairs (falsy pairs skipped); a missing value shows a dash. */
export function facts(pairs) {
  return h('dl', { class: 'facts' }, pairs.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

let fieldIds = 0;

/** A labelled form control, with its hint tied to it by aria-describedby. */
export function field(label, control, hint) {
  const id = control.id || `f${++fieldIds}`;
  control.id = id;
  const hintId = hint ? `${id}-hint` : null;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

/** A <select> of [value, text] options with `value` selected. */
export function select(name, options, value) {
  return h('select', { name }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)));
}
