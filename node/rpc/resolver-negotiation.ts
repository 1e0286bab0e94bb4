/**
 * Content negotiation for the DID resolver (W3C DID Resolution, HTTP(S) binding; DIF Universal
 * Resolver driver conventions). The `Accept` header is parsed as RFC 9110 §12.5.1 describes:
 * media ranges with parameters (quoted or not), q-values, wildcards. For each representation the
 * most specific matching range gives its q; q=0 excludes it. The representations left are
 * ranked by q, then by how precisely they were named (a type named exactly, then an alias such
 * as `application/json`, then the `application/` wildcard, then the full wildcard), then by the
 * order of the header, then by this server's preference (the order of REPRESENTATIONS: the
 * resolution result first, so a missing Accept or a bare wildcard gets the resolution result).
 */

export const RESOLUTION_PROFILE = 'https://w3id.org/did-resolution';

export type Representation = 'resolution-ld' | 'resolution' | 'did-ld-json' | 'did-json';

interface Produced {
  type: string;
  /** the profile the representation carries, if any */
  profile?: string;
  /** what the Content-Type header says when this representation is sent */
  contentType: string;
  /** other full media types that name this representation, less precisely */
  aliases: string[];
  /** true for the resolution result, false for the bare DID document */
  result: boolean;
}

export const REPRESENTATIONS: Record<Representation, Produced> = {
  'resolution-ld': {
    type: 'application/ld+json',
    profile: RESOLUTION_PROFILE,
    contentType: `application/ld+json;profile="${RESOLUTION_PROFILE}"`,
    aliases: ['application/json'],
    result: true,
  },
  resolution: { type: 'application/did-resolution', contentType: 'application/did-resolution', aliases: ['application/json'], result: true },
  'did-ld-json': { type: 'application/did+ld+json', contentType: 'application/did+ld+json', aliases: [], result: false },
  'did-json': { type: 'application/did+json', contentType: 'application/did+json', aliases: [], result: false },
};

/** Server preference, used when the header does not decide. */
const PREFERENCE = Object.keys(REPRESENTATIONS) as Representation[];

export const DEFAULT_REPRESENTATION: Representation = 'resolution-ld';

export interface MediaRange {
  type: string;
  subtype: string;
  /** media-type parameters (before `q`), names lowercased; accept-extensions after `q` are dropped */
  params: Record<string, string>;
  q: number;
  /** position in the header, for ties */
  index: number;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/** Splits on `sep` outside quoted strings (a quoted string may hold commas and semicolons). */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + text[++i];
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** A parameter value: a quoted string, or bare. Bare values may hold `:` and `/` (not token characters) because clients send profile URIs unquoted. */
function paramValue(raw: string): string | undefined {
  if (/^[^\s",;\\]+$/.test(raw)) return raw;
  const m = /^"((?:[^"\\]|\\.)*)"$/.exec(raw);
  return m ? m[1]!.replace(/\\(.)/g, '$1') : undefined;
}

/** One element of the header, or undefined when it is malformed (such an element is ignored). */
function parseRange(element: string, index: number): MediaRange | undefined {
  const [head, ...rawParams] = splitOutsideQuotes(element, ';');
  const [type, subtype, extra] = head!.trim().toLowerCase().split('/');
  if (!type || !subtype || extra !== undefined || !TOKEN.test(type) || !TOKEN.test(subtype)) return undefined;
  if (type === '*' && subtype !== '*') return undefined;
  const params: Record<string, string> = {};
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) return undefined;
    const name = raw.slice(0, eq).trim().toLowerCase();
    const value = paramValue(raw.slice(eq + 1).trim());
    if (!TOKEN.test(name) || value === undefined) return undefined;
    if (name === 'q') {
      if (!QVALUE.test(value)) return undefined;
      q = Number(value);
      break;
    }
    params[name] = value;
  }
  return { type, subtype, params, q, index };
}

/** The media ranges of an Accept value, in header order, malformed elements left out. */
export function parseAccept(header: string): MediaRange[] {
  return splitOutsideQuotes(header, ',')
    .map((element, index) => (element.trim() === '' ? undefined : parseRange(element, index)))
    .filter((r): r is MediaRange => r !== undefined);
}

/**
 * How precisely `range` names `rep`: 0 the full wildcard, 1 `application/` with a wildcard
 * subtype, 2 an alias, 3 the type itself,
 * plus a tenth per parameter; undefined when it does not match. Parameters must all be honoured:
 * `charset` only as utf-8, `profile` (a space-separated list of URIs) only on the representation
 * that carries that profile, anything else not at all.
 */
function precision(range: MediaRange, rep: Produced): number | undefined {
  const full = `${range.type}/${range.subtype}`;
  let level: number;
  if (full === '*/*') level = 0;
  else if (range.subtype === '*') level = range.type === rep.type.split('/')[0] ? 1 : -1;
  else if (full === rep.type) level = 3;
  else level = rep.aliases.includes(full) ? 2 : -1;
  if (level < 0) return undefined;
  for (const [name, value] of Object.entries(range.params)) {
    if (name === 'charset' && value.toLowerCase() === 'utf-8') continue;
    if (name === 'profile' && level === 3 && rep.profile !== undefined && value.split(/\s+/).includes(rep.profile)) continue;
    return undefined;
  }
  return level + Object.keys(range.params).length / 10;
}

export interface Negotiated {
  /** the representations the client takes, best first; empty when it takes none of them */
  acceptable: Representation[];
}

/** The representations an Accept value allows, best first. A missing or blank header allows all, the resolution result first. */
export function negotiate(accept: string | undefined): Negotiated {
  if (accept === undefined || accept.trim() === '') return { acceptable: [...PREFERENCE] };
  const ranges = parseAccept(accept);
  const ranked: { rep: Representation; q: number; level: number; index: number; order: number }[] = [];
  PREFERENCE.forEach((rep, order) => {
    let best: { range: MediaRange; p: number } | undefined;
    for (const range of ranges) {
      const p = precision(range, REPRESENTATIONS[rep]);
      if (p !== undefined && (best === undefined || p > best.p)) best = { range, p };
    }
    if (best && best.range.q > 0) ranked.push({ rep, q: best.range.q, level: Math.floor(best.p), index: best.range.index, order });
  });
  ranked.sort((a, b) => b.q - a.q || b.level - a.level || a.index - b.index || a.order - b.order);
  return { acceptable: ranked.map((r) => r.rep) };
}
