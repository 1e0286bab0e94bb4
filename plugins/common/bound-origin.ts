import type { AddressInfo } from 'node:net';

/**
 * The http origin a plugin announces for itself (in invitations, hosted links, DID services)
 * when no publicUrl is configured: where its server is bound, as a client on this machine
 * reaches it. A wildcard bind (0.0.0.0, ::) is not an address anyone can dial, so it becomes
 * 127.0.0.1; an IPv6 address gets its brackets. Before the server listens (or on a pipe) the
 * address is unknown: 127.0.0.1 and the configured port.
 */
export function boundOrigin(address: AddressInfo | string | null, configuredPort: number): string {
  const bound = typeof address === 'object' && address !== null ? address : undefined;
  const ip = bound?.address;
  const host = !ip || ip === '0.0.0.0' || ip === '::' ? '127.0.0.1' : ip.includes(':') ? `[${ip}]` : ip;
  return `http://${host}:${bound?.port ?? configuredPort}`;
}
