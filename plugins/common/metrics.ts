import type { Registry } from 'prom-client';

/**
 * Helpers for the plugins' Prometheus metrics (on the node's registry): a metric reused when a
 * plugin restarts in the same process, and a wrapper that counts calls of one method of a part
 * without the part knowing.
 */

export function metric<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** `target` with one method replaced; every other member read from (and bound to) `target` itself. */
export function withMethod<T extends object, K extends keyof T>(target: T, key: K, replacement: T[K]): T {
  return new Proxy(target, {
    get(obj, prop) {
      if (prop === key) return replacement;
      const value: unknown = Reflect.get(obj, prop, obj);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(obj) : value;
    },
  });
}
