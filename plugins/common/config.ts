import { invalid } from '../../node/errors.js';

/**
 * Readers of a plugin's own config options (`plugins.<name>.*`): each checks one value and names
 * the option in its error (code CONFIG_INVALID), so a typo fails at start with the option's path.
 */
export function configValues(prefix: string) {
  const where = (key: string) => `${prefix}.${key}`;
  const fail = (key: string, what: string) => invalid('CONFIG_INVALID', `${where(key)} ${what}`);
  return {
    where,

    int(value: unknown, key: string, fallback: number, min: number, max: number): number {
      if (value === undefined) return fallback;
      const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw fail(key, `must be an integer from ${min} to ${max}`);
      return n;
    },

    bool(value: unknown, key: string, fallback: boolean): boolean {
      if (value === undefined) return fallback;
      if (value === true || value === 'true') return true;
      if (value === false || value === 'false') return false;
      throw fail(key, 'must be true or false');
    },

    str(value: unknown, key: string, opts: { fallback?: string; max?: number } = {}): string {
      if (value === undefined && opts.fallback !== undefined) return opts.fallback;
      const max = opts.max ?? 500;
      if (typeof value !== 'string' || value.trim() === '' || value.length > max) throw fail(key, `must be a non-empty string of at most ${max} characters`);
      return value;
    },

    /** A URL with one of `protocols`, without its trailing slashes. */
    url(value: unknown, key: string, protocols: readonly string[] = ['http:', 'https:']): string {
      if (typeof value !== 'string') throw fail(key, 'must be a URL');
      let parsed: URL;
      try {
        parsed = new URL(value);
      } catch {
        throw fail(key, `is not a URL: ${value.slice(0, 200)}`);
      }
      if (!protocols.includes(parsed.protocol)) throw fail(key, `must be ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`);
      return value.replace(/\/+$/, '');
    },

    /** A nested section: an object whose keys are all `allowed` ({} when absent). */
    object(value: unknown, key: string, allowed: readonly string[]): Record<string, unknown> {
      if (value === undefined) return {};
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail(key, 'must be an object');
      for (const k of Object.keys(value)) if (!allowed.includes(k)) throw invalid('CONFIG_INVALID', `unknown option ${where(`${key}.${k}`)}; allowed: ${allowed.join(', ')}`);
      return value as Record<string, unknown>;
    },

    /** Refuses keys of `section` that are not `known`, so a misspelt option is not ignored. */
    onlyKnown(section: object, known: ReadonlySet<string>): void {
      for (const key of Object.keys(section)) if (!known.has(key)) throw invalid('CONFIG_INVALID', `unknown option ${where(key)}`);
    },
  };
}
