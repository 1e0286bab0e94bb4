import { resolveServiceKeySecret, SERVICE_KEY_SECRET_ENV, type ServiceKeySecret } from '../../../../node/config/service-key-secret.js';
import type { BinarySublevel } from '../../../../node/state/db.js';

/** A service-key secret as LEDGER_SERVICE_KEY_SECRET would give it. */
export function testSecret(text = 'the-test-service-key-secret'): Promise<ServiceKeySecret> {
  return resolveServiceKeySecret({ env: { [SERVICE_KEY_SECRET_ENV]: text } });
}

/** What a PluginContext hands loadServiceKey: `adopt` is the genesis service key, if any. */
export function keySource(secret: ServiceKeySecret, adopt?: Uint8Array): { serviceKey(): Promise<Uint8Array | undefined>; serviceKeySecret(): Promise<ServiceKeySecret> } {
  return { serviceKey: async () => adopt, serviceKeySecret: async () => secret };
}

/** A secret's forms someone grepping a dump would try: hex, base64, base64url and the raw bytes. */
export function formsOf(secret: Uint8Array): Array<[string, Buffer]> {
  const b = Buffer.from(secret);
  return [
    ['hex', Buffer.from(b.toString('hex'))],
    ['HEX', Buffer.from(b.toString('hex').toUpperCase())],
    ['base64', Buffer.from(b.toString('base64'))],
    ['base64url', Buffer.from(b.toString('base64url'))],
    ['raw', b],
  ];
}

/** The forms of `secret` that occur in `bytes`. */
export function foundIn(bytes: Buffer, secret: Uint8Array): string[] {
  return formsOf(secret)
    .filter(([, form]) => bytes.includes(form))
    .map(([name]) => name);
}

/** Every key and value of a plugin's namespace, raw, as one buffer. */
export async function rawNamespace(store: BinarySublevel): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const [k, v] of store.iterator()) parts.push(Buffer.from(k), Buffer.from(v));
  return Buffer.concat(parts);
}
