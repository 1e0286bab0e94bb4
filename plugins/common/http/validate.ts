import { validation } from './problems.js';

/** Body and query checks with precise messages; every failure is a 400 `…/validation` Problem. */

const show = (v: unknown): string => {
  if (typeof v === 'bigint') return `${v}`;
  const text = JSON.stringify(v);
  return text === undefined ? String(v) : text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

/** Refuses fields other than `allowed`, so a misspelt field is not silently ignored. */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw validation(`unknown field ${key}; allowed: ${allowed.join(', ')}`, key);
  }
}

export function requiredString(body: Record<string, unknown>, field: string, opts: { max?: number; pattern?: RegExp; patternText?: string } = {}): string {
  const v = body[field];
  if (v === undefined || v === null) throw validation(`${field} is required`, field);
  return checkString(v, field, opts);
}

export function optionalString(body: Record<string, unknown>, field: string, opts: { max?: number; pattern?: RegExp; patternText?: string } = {}): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  return checkString(v, field, opts);
}

function checkString(v: unknown, field: string, opts: { max?: number; pattern?: RegExp; patternText?: string }): string {
  const max = opts.max ?? 200;
  if (typeof v !== 'string') throw validation(`${field} must be a string, got ${show(v)}`, field);
  if (v.trim() === '') throw validation(`${field} must not be empty`, field);
  if (v.length > max) throw validation(`${field} is at most ${max} characters (got ${v.length})`, field);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw validation(`${field} must not contain control characters`, field);
  if (opts.pattern && !opts.pattern.test(v)) throw validation(`${field} must be ${opts.patternText ?? `like ${opts.pattern}`}, got ${show(v)}`, field);
  return v;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  if (value === undefined || value === null) throw validation(`${field} is required; one of ${allowed.join(', ')}`, field);
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw validation(`${field} must be one of ${allowed.join(', ')}, got ${show(value)}`, field);
  }
  return value as T;
}

export function optionalBoolean(body: Record<string, unknown>, field: string): boolean | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw validation(`${field} must be true or false, got ${show(v)}`, field);
  return v;
}

/** An integer query parameter in [min, max]; `fallback` when absent. */
export function queryInt(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const all = query.getAll(name);
  if (all.length === 0) return fallback;
  if (all.length > 1) throw validation(`${name} is given ${all.length} times; give it once`, name);
  const text = all[0]!;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw validation(`${name} must be an integer from ${min} to ${max}, got ${show(text.slice(0, 40))}`, name);
  }
  return Number(text);
}

/** A query parameter that, when given, is one of `allowed`. */
export function queryEnum<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
  const text = queryString(query, name, 100);
  if (text === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(text)) throw validation(`${name} must be one of ${allowed.join(', ')}, got ${show(text.slice(0, 40))}`, name);
  return text as T;
}

export function queryString(query: URLSearchParams, name: string, max: number): string | undefined {
  const all = query.getAll(name);
  if (all.length === 0) return undefined;
  if (all.length > 1) throw validation(`${name} is given ${all.length} times; give it once`, name);
  const text = all[0]!;
  if (text === '') throw validation(`${name} must not be empty`, name);
  if (text.length > max) throw validation(`${name} is at most ${max} characters`, name);
  if (/[\u0000-\u001f\u007f]/.test(text)) throw validation(`${name} must not contain control characters`, name);
  return text;
}

/** Refuses query parameters the route does not know. */
export function onlyQuery(query: URLSearchParams, allowed: readonly string[]): void {
  for (const key of new Set(query.keys())) {
    if (!allowed.includes(key)) throw validation(`unknown query parameter ${key}${allowed.length ? `; allowed: ${allowed.join(', ')}` : '; this route takes none'}`, key);
  }
}

/** A DID (or DID URL) as the wire routes use them. */
export const DID_PATTERN = /^did:[a-z0-9]+:[^\s]{1,4000}$/;

/** "just now", "42s ago", "5m ago", "3h ago", "2d ago"; null for no time. */
export function ago(at: number | null | undefined, now: number): string | null {
  if (at === null || at === undefined) return null;
  const s = Math.max(0, Math.floor((now - at) / 1000));
  if (s < 5) return 'just now';
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
