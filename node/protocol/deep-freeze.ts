/**
 * Freezes a value and everything it holds, and returns it: for data that must never change once
 * read. Byte arrays cannot be frozen and are left as they are.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !ArrayBuffer.isView(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
