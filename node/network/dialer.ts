import type { Libp2p, PeerId } from '@libp2p/interface';
import { peerIdFromString } from '@libp2p/peer-id';
import { multiaddr, type Multiaddr } from '@multiformats/multiaddr';
import type { Logger } from '../logging.js';

/**
 * Keeps one bootstrap address connected: dial it, and whenever its peer is not connected dial it
 * again, backing off from REDIAL_MIN_MS to REDIAL_MAX_MS. An address without /p2p/<peer id> works
 * too: Noise learns the peer id on the first connection, and from then on the loop watches it.
 */

export const REDIAL_MIN_MS = 250;
export const REDIAL_MAX_MS = 2_000;
export const DIAL_TIMEOUT_MS = 5_000;

export function parseBootstrap(addr: string): { target: Multiaddr; peerId: PeerId | undefined } {
  const target = multiaddr(addr);
  const named = target.getComponents().find((c) => c.name === 'p2p')?.value;
  return { target, peerId: named ? peerIdFromString(named) : undefined };
}

export async function keepDialing(node: Libp2p, addr: string, signal: AbortSignal, log: Logger): Promise<void> {
  let target: Multiaddr;
  let peerId: PeerId | undefined;
  try {
    ({ target, peerId } = parseBootstrap(addr));
  } catch (err) {
    log.error({ err, addr }, 'bad bootstrap address; skipped');
    return;
  }
  if (peerId?.equals(node.peerId)) return;
  let delay = REDIAL_MIN_MS;
  while (!signal.aborted) {
    const connected = peerId !== undefined && node.getConnections(peerId).length > 0;
    if (!connected) {
      try {
        const conn = await node.dial(target, { signal: AbortSignal.any([signal, AbortSignal.timeout(DIAL_TIMEOUT_MS)]) });
        peerId = conn.remotePeer;
        delay = REDIAL_MIN_MS;
      } catch (err) {
        if (signal.aborted) return;
        // a devnet's bootstrap list may name this node itself
        if (/dial self/i.test((err as Error).message)) return log.debug({ addr }, 'bootstrap address is this node; skipped');
        log.debug({ err, addr }, 'bootstrap dial failed');
        delay = Math.min(delay * 2, REDIAL_MAX_MS);
      }
    }
    await sleep(connected ? REDIAL_MAX_MS : delay, signal);
  }
}

/** Resolves after `ms` or as soon as `signal` aborts, leaving no timer behind. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
