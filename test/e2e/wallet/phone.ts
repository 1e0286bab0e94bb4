import { buildDidCreate, didForPublicKey, generateSeed, keyPairFromSeed, signAndEncode, toHex, type SignedTransaction, type UnsignedTransaction } from '../../../node/client/index.js';
import { sign } from '../../../node/crypto/ed25519.js';
import { addressFromPublicKey } from '../../../node/protocol/address.js';
import { solvePow } from '../../../plugins/wallet/guardians/pow.js';

/**
 * A wallet app on a phone, as the e2e tests drive the wallet backend: it holds its seed (never
 * sent anywhere), keeps the session cookie the backend sets, signs what the backend prepares,
 * and records every request body it sends, so a test can check none carried a secret.
 */

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export class Phone {
  readonly seed: Uint8Array;
  readonly publicKey: Uint8Array;
  readonly address: string;
  readonly did: string;
  cookie: string | undefined;
  /** every body this phone sent */
  readonly sent: string[] = [];

  constructor(
    readonly wallet: string,
    readonly chainId: string,
    network: string,
    seed: Uint8Array = generateSeed(),
  ) {
    this.seed = seed;
    this.publicKey = keyPairFromSeed(seed).publicKey;
    this.address = addressFromPublicKey(this.publicKey);
    this.did = didForPublicKey(network, this.publicKey);
  }

  async call(method: string, path: string, body?: unknown, raw?: string): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
    if (text !== undefined) {
      headers['content-type'] = 'application/json';
      this.sent.push(text);
    }
    const res = await fetch(`${this.wallet}${path}`, { method, headers, ...(text !== undefined ? { body: text } : {}) });
    const set = res.headers.get('set-cookie');
    if (set) {
      const pair = set.split(';')[0]!;
      this.cookie = pair.endsWith('=') ? undefined : pair;
    }
    const out = await res.text();
    return { status: res.status, headers: res.headers, body: out === '' ? null : JSON.parse(out) };
  }

  /** the signed DidCreate's JSON text, as `ledger_sendTransaction` takes it */
  didCreate(): SignedTransaction {
    return signAndEncode(this.chainId, buildDidCreate({ senderPubkey: this.publicKey, nonce: 0 }), this.seed);
  }

  sign(unsigned: UnsignedTransaction): SignedTransaction {
    return signAndEncode(this.chainId, unsigned, this.seed);
  }

  /** a ChainTransaction object from prepare's `unsigned` and `signingBytes`, signed on the phone */
  signPrepared(prepared: { unsigned: Record<string, unknown>; signingBytes: string }): Record<string, unknown> {
    const signature = sign(this.seed, Buffer.from(prepared.signingBytes, 'hex'));
    return { ...prepared.unsigned, signature: [...signature] };
  }

  /** Asks for the recovery of `subjectDid` to this phone's key: a challenge, its proof of work solved here, then initiate. */
  async initiateRecovery(subjectDid: string): Promise<Answer> {
    const { body: c } = await this.call('GET', '/v1/guardian/recovery/challenge');
    const newPublicKey = toHex(this.publicKey);
    return this.call('POST', '/v1/guardian/recovery/initiate', { subjectDid, newPublicKey, proof: solvePow({ challenge: c.challenge, did: subjectDid, newPublicKey, bits: c.bits }) });
  }

  signText(text: string): string {
    return toHex(sign(this.seed, new TextEncoder().encode(text)));
  }
}
