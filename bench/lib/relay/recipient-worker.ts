import { parentPort, workerData } from 'node:worker_threads';
import type { DIDDoc } from 'didcomm-node';
import { WebSocket } from 'ws';
import { AgentResolver, DidcommAgent } from './didcomm-agent.js';

/**
 * bench/relay's recipient, in a worker thread so that the sender's HTTP work never delays its
 * event loop: it gets mediation, registers its key, opens a live WebSocket to /didcomm and turns
 * live delivery on. Each frame is stamped when it arrives (performance.timeOrigin + now(), which
 * every thread of the process shares), then decrypted; the attachments of a delivery are not
 * decrypted: their JWE tag says which forward they are. It acknowledges with messages-received on
 * the socket every `ackBatch` messages or `ackMs` milliseconds, so the relay's queue stays short.
 */

export interface RecipientJob {
  didcomm: string;
  mediator: string;
  ackBatch: number;
  ackMs: number;
}

export type RecipientCommand = { cmd: 'take' } | { cmd: 'stop' };

export interface RecipientReport {
  /** inner JWE tags in arrival order, and when each frame carrying them arrived (ms since the epoch, sub-ms) */
  tags: string[];
  at: number[];
  frames: number;
  deliveries: number;
  statuses: number;
  /** frames that were not envelopes (JSON problems) or could not be decrypted */
  problems: string[];
  acks_sent: number;
  ids_acked: number;
  /** time spent decrypting frames, ms */
  unpack_ms: number;
}

export type RecipientMessage = { ready: { did: string; doc: DIDDoc } } | { report: RecipientReport } | { stopped: true } | { error: string };

const PICKUP = 'https://didcomm.org/messagepickup/3.0';
const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
const job = workerData as RecipientJob;
const port = parentPort!;
const now = () => performance.timeOrigin + performance.now();

const resolver = new AgentResolver();
const agent = new DidcommAgent(resolver);
let report: RecipientReport = fresh();
function fresh(): RecipientReport {
  return { tags: [], at: [], frames: 0, deliveries: 0, statuses: 0, problems: [], acks_sent: 0, ids_acked: 0, unpack_ms: 0 };
}

async function main(): Promise<void> {
  const grant = await agent.send(job.didcomm, job.mediator, `${MEDIATION}/mediate-request`, {});
  if (grant.message?.type !== `${MEDIATION}/mediate-grant`) throw new Error(`mediate-request: ${grant.status} ${grant.raw.slice(0, 300)}`);
  const update = await agent.send(job.didcomm, job.mediator, `${MEDIATION}/keylist-update`, { updates: [{ recipient_did: agent.did, action: 'add' }] });
  if (update.status !== 200) throw new Error(`keylist-update: ${update.status} ${update.raw.slice(0, 300)}`);

  const ws = new WebSocket(job.didcomm.replace(/^http/, 'ws'));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let stopping = false;
  // the relay closes the socket (4000 + an HTTP status) when it cannot answer an envelope in DIDComm
  ws.on('close', (code, reason) => {
    if (!stopping) report.problems.push(`the live socket closed: ${code} ${reason.toString().slice(0, 200)}`);
  });
  let pendingAcks: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sending = Promise.resolve();
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (pendingAcks.length === 0) return sending;
    const ids = pendingAcks;
    pendingAcks = [];
    sending = sending.then(async () => {
      const packed = await agent.pack(agent.message(`${PICKUP}/messages-received`, { message_id_list: ids }), job.mediator);
      ws.send(packed);
      report.acks_sent++;
      report.ids_acked += ids.length;
    });
    return sending;
  };

  let liveOn: (() => void) | undefined;
  let chain = Promise.resolve();
  ws.on('message', (data) => {
    const at = now();
    const text = data.toString();
    chain = chain.then(() => onFrame(text, at));
  });
  const onFrame = async (text: string, at: number) => {
    report.frames++;
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (!('ciphertext' in parsed)) {
      report.problems.push(text.slice(0, 300));
      return;
    }
    const t0 = performance.now();
    let m;
    try {
      m = await agent.unpack(text);
    } catch (err) {
      report.problems.push(`undecryptable frame: ${String(err).slice(0, 200)}`);
      return;
    } finally {
      report.unpack_ms += performance.now() - t0;
    }
    if (m.type === `${PICKUP}/status`) {
      report.statuses++;
      if ((m.body as { live_delivery?: boolean }).live_delivery === true) liveOn?.();
      return;
    }
    if (m.type !== `${PICKUP}/delivery`) {
      report.problems.push(`unexpected ${String(m.type)}: ${JSON.stringify(m.body).slice(0, 200)}`);
      return;
    }
    report.deliveries++;
    for (const a of (m.attachments ?? []) as Array<{ id: string; data: { json?: { tag?: string } } }>) {
      report.tags.push(a.data.json?.tag ?? '');
      report.at.push(at);
      pendingAcks.push(a.id);
    }
    if (pendingAcks.length >= job.ackBatch) void flush();
    else timer ??= setTimeout(() => void flush(), job.ackMs);
  };

  const on = new Promise<void>((resolve) => (liveOn = resolve));
  ws.send(await agent.pack(agent.message(`${PICKUP}/live-delivery-change`, { live_delivery: true }), job.mediator));
  await Promise.race([on, new Promise((_, reject) => setTimeout(() => reject(new Error(`live-delivery-change: no status in 10 s; ${report.problems.join('; ')}`)), 10_000))]);
  liveOn = undefined;

  port.on('message', (c: RecipientCommand) => {
    if (c.cmd === 'take') {
      port.postMessage({ report } satisfies RecipientMessage);
      report = fresh();
    } else if (c.cmd === 'stop') {
      void (async () => {
        await chain;
        await flush();
        stopping = true;
        ws.close();
        port.postMessage({ stopped: true } satisfies RecipientMessage);
      })();
    }
  });
  port.postMessage({ ready: { did: agent.did, doc: (await resolver.resolve(agent.did))! } } satisfies RecipientMessage);
}

main().catch((err: unknown) => port.postMessage({ error: (err as Error).stack ?? String(err) } satisfies RecipientMessage));
