import { parentPort, workerData } from 'node:worker_threads';
import type { DIDDoc } from 'didcomm-node';
import { AgentResolver, DidcommAgent } from './didcomm-agent.js';

/**
 * A worker thread that packs forwards ahead of time for bench/relay: each is a forward to the
 * mediator (anoncrypt, or authcrypt from a did:peer:2 sender of this worker) wrapping a small
 * message anoncrypted for the recipient. The inner JWE's `tag` names each one: the recipient finds
 * it again in the delivery's attachment without decrypting it.
 */

export interface PackJob {
  mediator: string;
  recipient: DIDDoc;
  /** sequence numbers [from, from + count) */
  from: number;
  count: number;
  size: number;
  sender: 'anoncrypt' | 'authcrypt';
}

export interface PackedForward {
  seq: number;
  /** the inner JWE's tag, as the recipient will see it in the attachment */
  tag: string;
  packed: string;
}

export type PackWorkerMessage = { done: number } | { forwards: PackedForward[] };

const job = workerData as PackJob;
const resolver = new AgentResolver();
resolver.add(job.recipient);
const sender = new DidcommAgent(resolver);
const port = parentPort!;
const pad = 'x'.repeat(job.size);
let out: PackedForward[] = [];
for (let seq = job.from; seq < job.from + job.count; seq++) {
  const inner = await sender.pack(sender.message('https://example.org/bench/1.0/message', { seq, pad }), job.recipient.id, { anon: true });
  const packed = await sender.forward(job.mediator, job.recipient.id, inner, { anon: job.sender === 'anoncrypt' });
  out.push({ seq, tag: (JSON.parse(inner) as { tag: string }).tag, packed });
  if (out.length === 1000) {
    port.postMessage({ forwards: out } satisfies PackWorkerMessage);
    out = [];
  }
}
port.postMessage({ forwards: out } satisfies PackWorkerMessage);
port.postMessage({ done: job.count } satisfies PackWorkerMessage);
