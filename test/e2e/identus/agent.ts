/**
 * A Hyperledger Identus SDK (@hyperledger/identus-sdk 7) edge agent in plain Node 20, mediated by
 * the relay:
 *
 *   const relay = await readInvitation(base)                  // GET /invite
 *   const a = await startIdentusAgent({ relay, pollMs: 200 }) // or liveMode: true
 *   const sent = await a.send(otherDid, 'hello')              // BasicMessage 2.0, forwarded by the relay
 *   const m = await b.next((m) => m.id === sent.id)
 *   await a.stop()
 *
 * What the SDK needs around it in Node (the Identus probe's notes):
 * - Pluto needs a store (MemoryStore);
 * - Castor needs a did:key resolver for the relay's DID (relayDidKeyResolver, which reads the
 *   relay's GET /did-document), in every agent, senders included: a mediated agent's did:peer:2
 *   names the relay's did:key as its service endpoint. Not with `stockResolvers`: the agent is
 *   then given the invitation of the relay's did:peer:2 (GET /invite?did=peer), which the SDK's
 *   own resolvers read;
 * - live mode (options.experiments.liveMode) opens `new WebSocket(uri)` on the global WebSocket,
 *   which Node 20 lacks, so `ws`'s class is installed (with an error listener: without one a
 *   failed upgrade is an uncaught exception);
 * - the SDK's own pickup polling stops for good on its first HTTP error (with an unhandled
 *   rejection), so with `pollMs` it is replaced by a loop sending the same delivery-request.
 */
import { performance } from 'node:perf_hooks';
import SDK from '@hyperledger/identus-sdk';
import { BasicMessage, PickupRequest } from '@hyperledger/identus-sdk/plugins/didcomm';
import { MemoryStore } from './memory-store.js';
import { didDocumentUrl, relayDidKeyResolver, type RelayDidKeyResolver } from './relay-did-key.js';

const { Domain } = SDK;
type DID = InstanceType<typeof Domain.DID>;
type Message = InstanceType<typeof Domain.Message>;

export const BASIC_MESSAGE = 'https://didcomm.org/basicmessage/2.0/message';
export const PICKUP = 'https://didcomm.org/messagepickup/3.0';

export interface RelayInvitation {
  /** the invitation's `from`: the relay's did:key (or its did:peer:2) */
  mediatorDid: string;
  /** the DIDComm endpoint of the invitation (POST) */
  endpoint: string;
  /** the relay's GET /did-document, next to the endpoint */
  didDocumentUrl: string;
  invitation: { from: string; type: string; services: Array<{ serviceEndpoint: { uri: string } | string }> };
}

/** GET /invite of the relay at `base` (`did: 'peer'`: the invitation from its did:peer:2). */
export async function readInvitation(base: string, did: 'key' | 'peer' = 'key'): Promise<RelayInvitation> {
  const url = did === 'peer' ? `${base}/invite?did=peer` : `${base}/invite`;
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status}`);
  const invitation = (await res.json()) as RelayInvitation['invitation'];
  const se = invitation.services?.[0]?.serviceEndpoint;
  const endpoint = typeof se === 'string' ? se : se?.uri;
  if (!endpoint) throw new Error(`the invitation names no endpoint: ${JSON.stringify(invitation)}`);
  return { mediatorDid: invitation.from, endpoint, didDocumentUrl: didDocumentUrl(endpoint), invitation };
}

/** An Api that counts what the agent sends over HTTP (every DIDComm message is one POST). */
class CountingApi extends SDK.ApiImpl {
  posts = 0;
  /** performance.now() of each POST */
  postTimes: number[] = [];
  failures: string[] = [];
  override async request<T>(...args: Parameters<SDK.ApiImpl['request']>): Promise<SDK.Domain.ApiResponse<T>> {
    if (args[0] === 'POST') {
      this.posts++;
      this.postTimes.push(performance.now());
    }
    try {
      return await super.request<T>(...args);
    } catch (err) {
      this.failures.push(`${args[0]} ${args[1]}: ${(err as Error).message}`);
      throw err;
    }
  }
}

/** Errors of every live socket made through the installed global WebSocket. */
export const socketErrors: unknown[] = [];

async function ensureGlobalWebSocket(): Promise<void> {
  if (typeof (globalThis as { WebSocket?: unknown }).WebSocket !== 'undefined') return;
  const { WebSocket } = await import('ws');
  (globalThis as { WebSocket?: unknown }).WebSocket = class extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args);
      this.on('error', (e) => socketErrors.push(e));
    }
  };
}

export interface Arrival {
  message: Message;
  /** performance.now() when the SDK emitted it */
  at: number;
  /** the agent's HTTP POSTs so far when it arrived (the SDK acknowledges a delivery before it emits) */
  postsBefore: number;
  /** frames received on the live socket so far when it arrived */
  framesBefore: number;
}

export interface IdentusAgent {
  name: string;
  agent: SDK.Agent;
  /** the mediation ("host") DID: a did:peer:2 without services, the sender of all mediator traffic */
  hostDid: DID;
  /** a did:peer:2 whose service endpoint is the relay's DID, registered by keylist-update */
  did: DID;
  /** the did:key resolver given to Castor; undefined with `stockResolvers` */
  resolver: RelayDidKeyResolver | undefined;
  /** everything the SDK emitted as received, in order */
  arrivals: Arrival[];
  /** errors of the polling loop */
  errors: unknown[];
  /** HTTP POSTs made so far */
  readonly posts: number;
  /** performance.now() of each HTTP POST */
  readonly postTimes: readonly number[];
  /** live mode: performance.now() of each frame that came in on the socket */
  readonly frameTimes: readonly number[];
  /** live mode: the text of each frame that came in on the socket (envelopes for the host DID) */
  readonly frameTexts: readonly string[];
  /** HTTP requests that failed */
  readonly httpFailures: string[];
  /** live mode: frames that came in on the socket so far */
  readonly frames: number;
  /** live mode: how the socket closed, if it did */
  readonly socketClose: { code: number; reason: string } | undefined;
  send(to: string | DID, content: string): Promise<Message>;
  next(pred: (m: Message) => boolean, timeoutMs?: number): Promise<Arrival>;
  /** stops the polling loop (live mode has none) */
  pausePolling(): Promise<void>;
  /** one delivery-request as the polling loop sends it: a delivery is handled and acknowledged by the SDK */
  pollOnce(): Promise<void>;
  /** one delivery-request to the relay, its reply returned, not handled (nothing is acknowledged) */
  pickupOnce(limit?: number): Promise<Message | undefined>;
  /** a message of type `piuri` from the host DID to the relay, its reply returned, not handled */
  askRelay(piuri: string, body: Record<string, unknown>): Promise<Message | undefined>;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  relay: RelayInvitation;
  /** Pickup 3.0 live mode over the WebSocket of the relay's DID document */
  liveMode?: boolean;
  /** polling period (not in live mode): replaces the SDK's own 5 s job */
  pollMs?: number;
  /** Castor with the SDK's own resolvers only (no relayDidKeyResolver) */
  stockResolvers?: boolean;
}

interface LiveSocket {
  readyState: number;
  addEventListener(type: string, listener: (event: { code?: number; reason?: string; data?: unknown }) => void): void;
}

export async function startIdentusAgent(opts: StartOptions): Promise<IdentusAgent> {
  if (opts.liveMode) await ensureGlobalWebSocket();
  const { relay } = opts;
  const apollo = new SDK.Apollo();
  const resolver = opts.stockResolvers ? undefined : relayDidKeyResolver(relay.didDocumentUrl);
  const castor = resolver ? new SDK.Castor(apollo, [resolver.Resolver]) : new SDK.Castor(apollo);
  const pluto = new SDK.Pluto(new MemoryStore(), apollo);
  const api = new CountingApi();
  const agent = SDK.Agent.initialize({
    apollo,
    castor,
    pluto,
    api,
    mediatorDID: relay.mediatorDid,
    options: opts.liveMode ? { experiments: { liveMode: true } } : undefined,
  });

  const arrivals: Arrival[] = [];
  const errors: unknown[] = [];
  const waiters = new Set<() => void>();
  const frameTimes: number[] = [];
  const frameTexts: string[] = [];
  let socketClose: { code: number; reason: string } | undefined;
  agent.addListener(SDK.ListenerKey.MESSAGE, (msgs: Message[]) => {
    const at = performance.now();
    for (const message of msgs) arrivals.push({ message, at, postsBefore: api.posts, framesBefore: frameTimes.length });
    for (const w of [...waiters]) w();
  });

  // mediate-request → mediate-grant (in the HTTP answer), then pickup starts: polling, or in live
  // mode a WebSocket to the first ws(s) service of the relay's document, live-delivery-change on open
  await agent.start();
  const mediator = agent.connections.mediator;
  if (!mediator || mediator.state !== 4 /* GRANTED */) {
    const state = mediator?.state;
    await agent.stop().catch(() => {});
    throw new Error(`${opts.name}: mediation not granted by ${relay.mediatorDid} (connection state ${state}; resolver errors ${JSON.stringify(resolver?.errors ?? [])}; HTTP ${JSON.stringify(api.failures)})`);
  }
  if (opts.liveMode) {
    const socket = (mediator as unknown as { socket?: LiveSocket }).socket;
    if (!socket) {
      await agent.stop().catch(() => {});
      throw new Error(`${opts.name}: live mode found no ws:// or wss:// service in the relay's DID document`);
    }
    socket.addEventListener('message', (e) => {
      frameTimes.push(performance.now());
      frameTexts.push(String((e as { data?: unknown }).data));
    });
    socket.addEventListener('close', (e) => void (socketClose = { code: e.code ?? 0, reason: e.reason ?? '' }));
    if (socket.readyState === 0 /* CONNECTING */) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${opts.name}: the live WebSocket did not open in 5 s`)), 5000);
        socket.addEventListener('open', () => {
          clearTimeout(timer);
          resolve();
        });
        socket.addEventListener('error', () => {
          clearTimeout(timer);
          reject(new Error(`${opts.name}: the live WebSocket failed to open`));
        });
      }).catch(async (err: unknown) => {
        await agent.stop().catch(() => {});
        throw err;
      });
    }
  }
  const { hostDID: hostDid, mediatorDID } = mediator.asMediator();

  let polling = false;
  let wake: (() => void) | undefined;
  let poller: Promise<void> | undefined;
  if (!opts.liveMode && opts.pollMs !== undefined) {
    agent.stopFetchingMessages();
    const period = opts.pollMs;
    polling = true;
    poller = (async () => {
      while (polling) {
        try {
          // the SDK handles the answer: a delivery is unpacked, stored, emitted and acknowledged
          // (messages-received); a status is ignored
          await agent.send(new PickupRequest({ limit: 10 }, hostDid, mediatorDID).makeMessage());
        } catch (err) {
          errors.push(err);
        }
        if (!polling) break;
        await new Promise<void>((r) => {
          const timer = setTimeout(r, period);
          wake = () => {
            clearTimeout(timer);
            r();
          };
        });
      }
    })();
  }
  const pausePolling = async () => {
    polling = false;
    wake?.();
    await poller;
  };

  // a new did:peer:2 with the service {uri: <relay DID>}, and keylist-update (add) for it
  const did = await agent.createNewPeerDID([], true);

  return {
    name: opts.name,
    agent,
    hostDid,
    did,
    resolver,
    arrivals,
    errors,
    get posts() {
      return api.posts;
    },
    get httpFailures() {
      return api.failures;
    },
    get frames() {
      return frameTimes.length;
    },
    get postTimes() {
      return api.postTimes;
    },
    frameTimes,
    frameTexts,
    get socketClose() {
      return socketClose;
    },
    async send(to, content) {
      const message = new BasicMessage({ content }, did, typeof to === 'string' ? Domain.DID.fromString(to) : to).makeMessage();
      await agent.send(message);
      return message;
    },
    next(pred, timeoutMs = 10_000) {
      return new Promise<Arrival>((resolve, reject) => {
        const check = () => {
          const hit = arrivals.find((a) => pred(a.message));
          if (hit) {
            cleanup();
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${opts.name}: no matching message in ${timeoutMs} ms (received ${arrivals.length}; HTTP failures ${JSON.stringify(api.failures)}; poll errors ${errors.length})`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    pausePolling,
    async pollOnce() {
      await agent.send(new PickupRequest({ limit: 10 }, hostDid, mediatorDID).makeMessage());
    },
    pickupOnce(limit = 10) {
      return agent.mercury.sendMessageParseMessage(new PickupRequest({ limit }, hostDid, mediatorDID).makeMessage());
    },
    askRelay(piuri, body) {
      return agent.mercury.sendMessageParseMessage(new Domain.Message(body, undefined, piuri, hostDid, mediatorDID));
    },
    async stop() {
      await pausePolling();
      for (const w of [...waiters]) w();
      await agent.stop();
    },
  };
}

/** a message body as an object (the SDK keeps bodies as objects, but older paths give strings) */
export function bodyOf(m: Message): Record<string, unknown> {
  const b = m.body as unknown;
  return typeof b === 'string' ? (JSON.parse(b) as Record<string, unknown>) : (b as Record<string, unknown>);
}
