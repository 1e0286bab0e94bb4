/**
 * A wallet app's side of the wallet plugin's /v1 API, for bench/wallet: one user with its own
 * seed and session cookie. It signs on the "device" (this process) and sends the backend only
 * signed bytes, as docs/wallet.md describes. Every unexpected answer throws a WalletApiError
 * whose `code` names it (`HTTP <status> <problem code>`), so the bench can count errors by code.
 */
import { buildDidCreate, generateSeed, keyPairFromSeed, signAndEncode } from '../../../node/client/index.js';
import { sign } from '../../../node/crypto/ed25519.js';

export const SESSION_COOKIE = 'ledger_wallet_session';

export class WalletApiError extends Error {
  readonly code: string;
  constructor(
    readonly status: number,
    readonly body: any,
    readonly retryAfterS?: number,
  ) {
    super(`HTTP ${status}: ${body?.detail ?? JSON.stringify(body)}`);
    this.code = `HTTP ${status}${body?.code ? ` ${body.code}` : ''}`;
  }
}

/** what POST /v1/transactions/prepare answers (the fields the bench uses) */
export interface Prepared {
  unsigned: { sender_pubkey: number[]; nonce: number; payload: Record<string, unknown> };
  nonce: number;
  signingBytes: string;
  sufficientBalance: boolean;
}

export class WalletUser {
  readonly seed = generateSeed();
  readonly publicKey = keyPairFromSeed(this.seed).publicKey;
  cookie = '';
  address = '';

  constructor(readonly base: string) {}

  async call<T = any>(method: string, path: string, o: { json?: unknown; text?: string; expect: number }): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const body = o.text ?? (o.json === undefined ? undefined : JSON.stringify(o.json));
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.base}${path}`, { method, headers, body });
    // the session is renewed while the user is active: keep the newest cookie, as a browser would
    for (const c of res.headers.getSetCookie()) if (c.startsWith(`${SESSION_COOKIE}=`)) this.cookie = c.split(';')[0]!;
    const text = await res.text();
    const parsed = text === '' ? null : JSON.parse(text);
    if (res.status !== o.expect) {
      const retry = Number(res.headers.get('retry-after'));
      throw new WalletApiError(res.status, parsed, Number.isFinite(retry) && retry > 0 ? retry : undefined);
    }
    return parsed as T;
  }

  /** Signs a DidCreate (nonce 0) and registers with it; the sponsor funds the account and submits it. */
  async register(chainId: string): Promise<{ id: string; did: string; didStatus: string }> {
    const signed = signAndEncode(chainId, buildDidCreate({ senderPubkey: this.publicKey, nonce: 0 }), this.seed);
    const out = await this.call('POST', '/v1/users/register', { json: { signedDidCreate: signed.json }, expect: 201 });
    if (!this.cookie) throw new Error('register answered 201 without a session cookie');
    return out;
  }

  async me(): Promise<{ didStatus: string; didStatusReason: string | null; address: string }> {
    const me = await this.call('GET', '/v1/users/me', { expect: 200 });
    this.address = me.address;
    return me;
  }

  prepareSend(toAddress: string, amount: number): Promise<Prepared> {
    return this.call<Prepared>('POST', '/v1/transactions/prepare', { json: { chain: 'ledger', kind: 'send', assetId: 'lgr', amount, toAddress }, expect: 200 });
  }

  /** The signed ChainTransaction's JSON for a prepared transaction: signingBytes signed with the user's seed. */
  signPrepared(p: Prepared): string {
    const signature = sign(this.seed, new Uint8Array(Buffer.from(p.signingBytes, 'hex')));
    return JSON.stringify({ ...p.unsigned, signature: Array.from(signature) });
  }

  async send(signedJson: string): Promise<string> {
    const out = await this.call<{ hash: string }>('POST', '/v1/transactions/send', { text: signedJson, expect: 202 });
    return out.hash;
  }
}
