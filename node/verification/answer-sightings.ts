import { toHex } from '../protocol/bytes.js';

/** how many requests' sightings a node keeps; the oldest go first */
const REQUESTS_LIMIT = 10_000;

/**
 * The members whose answers to a request this node has seen enter its mempool, by request. A
 * standby member reads it before it checks a presentation: answers in flight from enough members
 * mean the response is coming, and its own check would be wasted.
 */
export class AnswerSightings {
  private readonly byRequest = new Map<string, Set<string>>();

  record(requestId: string, publicKey: Uint8Array): void {
    let members = this.byRequest.get(requestId);
    if (!members) {
      if (this.byRequest.size >= REQUESTS_LIMIT) this.byRequest.delete(this.byRequest.keys().next().value!);
      members = new Set();
      this.byRequest.set(requestId, members);
    }
    members.add(toHex(publicKey));
  }

  /** the members that answered `requestId`: on chain (`committed`) or seen in flight */
  count(requestId: string, committed: readonly Uint8Array[]): number {
    const members = new Set(this.byRequest.get(requestId));
    for (const k of committed) members.add(toHex(k));
    return members.size;
  }
}
