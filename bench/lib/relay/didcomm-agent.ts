import { createRequire } from 'node:module';
import { randomBytes, randomUUID } from 'node:crypto';
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import type { DIDDoc, IMessage, Secret } from 'didcomm-node';
import { WebSocket } from 'ws';
import { addressFromPublicKey } from '../../../node/protocol/address.js';

/**
 * A DIDComm v2 agent for the relay's tests and bench/relay, built on the reference library
 * (didcomm-node) with its own DIDs and its own resolver, written here from the specs and
 * independent of the relay's code: did:peer:2 for agents, did:key for the mediator (X25519
 * derived from the Ed25519 key).
 */

const didcomm = createRequire(import.meta.url)('didcomm-node') as typeof import('didcomm-node');

const multikey = (prefix: number[], key: Uint8Array) => `z${base58.encode(Uint8Array.from([...prefix, ...key]))}`;
const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** A DID document with one X25519 key agreement key and one Ed25519 authentication key, as JWKs. */
function okpDocument(did: string, [xkid, xpub]: [string, Uint8Array], [edkid, ed]: [string, Uint8Array], service: DIDDoc['service']): DIDDoc {
  return {
    id: did,
    keyAgreement: [xkid],
    authentication: [edkid],
    verificationMethod: [
      { id: xkid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'X25519', x: b64u(xpub) } },
      { id: edkid, type: 'JsonWebKey2020', controller: did, publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: b64u(ed) } },
    ],
    service,
  };
}

/** Resolves did:key (Ed25519) and the did:peer:2 agents registered with it. */
export class AgentResolver {
  private docs = new Map<string, DIDDoc>();

  add(doc: DIDDoc): void {
    this.docs.set(doc.id, doc);
  }

  resolve = async (did: string): Promise<DIDDoc | null> => {
    const known = this.docs.get(did);
    if (known) return known;
    if (!did.startsWith('did:key:z6Mk')) return null;
    const bytes = base58.decode(did.slice('did:key:z'.length));
    const ed = bytes.slice(2);
    const xpub = ed25519.utils.toMontgomery(ed);
    const xkid = `${did}#${multikey([0xec, 0x01], xpub)}`;
    const edkid = `${did}#${did.slice('did:key:'.length)}`;
    return okpDocument(did, [xkid, xpub], [edkid, ed], []);
  };
}

export interface Reply {
  status: number;
  message?: IMessage & Record<string, unknown>;
  problem?: Record<string, unknown>;
  raw: string;
}

export class DidcommAgent {
  readonly did: string;
  private secrets: Secret[];

  /** the Ed25519 public key (a did:ledger agent registers it on chain) */
  readonly ed25519PublicKey: Uint8Array;

  /**
   * A did:peer:2 agent, or with `ledgerNetwork` a did:ledger one: its DID is the address of its
   * Ed25519 key, and its key agreement key the X25519 key derived from it (`#key-x25519-1`), as the
   * relay resolves on-chain documents (docs/relay.md, "Chain-anchored routing"). `seed` fixes the
   * Ed25519 key, for a test that also signs with it outside DIDComm (a verification request).
   */
  constructor(
    readonly resolver: AgentResolver,
    opts: { serviceUri?: string; routingKeys?: string[]; ledgerNetwork?: string; seed?: Uint8Array } = {},
  ) {
    const esk = opts.seed ?? randomBytes(32);
    const epk = ed25519.getPublicKey(esk);
    const xsk = opts.ledgerNetwork ? ed25519.utils.toMontgomerySecret(esk) : randomBytes(32);
    const xpk = x25519.getPublicKey(xsk);
    this.ed25519PublicKey = epk;
    let did = opts.ledgerNetwork ? `did:ledger:${opts.ledgerNetwork}:${addressFromPublicKey(epk)}` : `did:peer:2.E${multikey([0xec, 0x01], xpk)}.V${multikey([0xed, 0x01], epk)}`;
    if (opts.serviceUri && !opts.ledgerNetwork) did += `.S${b64u(Buffer.from(JSON.stringify({ t: 'dm', s: { uri: opts.serviceUri, a: ['didcomm/v2'], r: opts.routingKeys ?? [] } })))}`;
    this.did = did;
    const xkid = opts.ledgerNetwork ? `${did}#key-x25519-1` : `${did}#key-1`;
    const ekid = opts.ledgerNetwork ? `${did}#key-1` : `${did}#key-2`;
    resolver.add(
      okpDocument(did, [xkid, xpk], [ekid, epk], opts.serviceUri ? [{ id: `${did}#service`, type: 'DIDCommMessaging', serviceEndpoint: { uri: opts.serviceUri, accept: ['didcomm/v2'], routing_keys: opts.routingKeys ?? [] } }] : []),
    );
    this.secrets = [
      { id: xkid, type: 'JsonWebKey2020', privateKeyJwk: { kty: 'OKP', crv: 'X25519', x: b64u(xpk), d: b64u(xsk) } },
      { id: ekid, type: 'JsonWebKey2020', privateKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: b64u(epk), d: b64u(esk) } },
    ];
  }

  private secretsResolver() {
    const list = this.secrets;
    return {
      get_secret: async (id: string) => list.find((s) => s.id === id) ?? null,
      find_secrets: async (ids: string[]) => ids.filter((id) => list.some((s) => s.id === id)),
    };
  }

  message(type: string, body: Record<string, unknown>, extra: Record<string, unknown> = {}): IMessage {
    return { id: randomUUID(), typ: 'application/didcomm-plain+json', type, body, created_time: Math.floor(Date.now() / 1000), ...extra } as IMessage;
  }

  /** authcrypt from this agent (default) or anoncrypt */
  async pack(message: IMessage, to: string, opts: { anon?: boolean } = {}): Promise<string> {
    const m = new didcomm.Message({ ...message, to: [to], ...(opts.anon ? {} : { from: this.did }) } as IMessage);
    try {
      const [packed] = await m.pack_encrypted(to, opts.anon ? null : this.did, null, { resolve: this.resolver.resolve }, this.secretsResolver(), { forward: false });
      return packed;
    } finally {
      m.free();
    }
  }

  async unpack(packed: string): Promise<IMessage & Record<string, unknown>> {
    const [m] = await didcomm.Message.unpack(packed, { resolve: this.resolver.resolve }, this.secretsResolver(), {});
    try {
      return m.as_value() as IMessage & Record<string, unknown>;
    } finally {
      m.free();
    }
  }

  /** a forward to `mediator` wrapping `inner` (already packed for `next`) */
  async forward(mediator: string, next: string, inner: string, opts: { anon?: boolean; headers?: Record<string, unknown> } = {}): Promise<string> {
    const fwd = this.message('https://didcomm.org/routing/2.0/forward', { next }, { attachments: [{ id: randomUUID(), data: { json: JSON.parse(inner) } }], ...(opts.headers ?? {}) });
    return this.pack(fwd, mediator, { anon: opts.anon ?? true });
  }

  async post(url: string, packed: string): Promise<Reply> {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/didcomm-encrypted+json' }, body: packed });
    const raw = await res.text();
    const type = res.headers.get('content-type') ?? '';
    if (type.startsWith('application/didcomm-encrypted+json')) return { status: res.status, message: await this.unpack(raw), raw };
    if (type.startsWith('application/problem+json')) return { status: res.status, problem: JSON.parse(raw) as Record<string, unknown>, raw };
    return { status: res.status, raw };
  }

  /** packs `type`/`body` for the mediator and posts it */
  async send(url: string, mediator: string, type: string, body: Record<string, unknown>, opts: { anon?: boolean; extra?: Record<string, unknown> } = {}): Promise<Reply> {
    return this.post(url, await this.pack(this.message(type, body, opts.extra), mediator, opts));
  }

  /** a live-mode socket: every frame in is an envelope; a refusal closes it (4000 + status) */
  async socket(url: string): Promise<{ ws: WebSocket; next(timeoutMs?: number): Promise<IMessage & Record<string, unknown>>; sendRaw(text: string): void; close(): void; closed: Promise<{ code: number; reason: string }> }> {
    const ws = new WebSocket(url.replace(/^http/, 'ws'));
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const inbox: Array<IMessage & Record<string, unknown>> = [];
    const waiters: Array<(m: IMessage & Record<string, unknown>) => void> = [];
    ws.on('message', (data) => {
      const text = data.toString();
      void (async () => {
        const m = await this.unpack(text);
        const w = waiters.shift();
        if (w) w(m);
        else inbox.push(m);
      })();
    });
    return {
      ws,
      next: (timeoutMs = 5000) => {
        const m = inbox.shift();
        if (m) return Promise.resolve(m);
        return new Promise((resolve, reject) => {
          const waiter = (msg: IMessage & Record<string, unknown>) => {
            clearTimeout(timer);
            resolve(msg);
          };
          // a waiter that timed out leaves the queue, or it would swallow the next message
          const timer = setTimeout(() => {
            waiters.splice(waiters.indexOf(waiter), 1);
            reject(new Error('no live message in time'));
          }, timeoutMs);
          waiters.push(waiter);
        });
      },
      sendRaw: (text) => ws.send(text),
      close: () => ws.close(),
      closed,
    };
  }
}
