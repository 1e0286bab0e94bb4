import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { invalid } from '../../../node/errors.js';
import { loadOrCreateSecret } from '../../common/auth/session-token.js';
import type { BinarySublevel } from '../../../node/state/db.js';

/**
 * The proof of work a recovery initiation pays (docs/wallet.md, "Starting a recovery"). The
 * server hands out a challenge; the client finds a nonce such that
 *
 *   SHA-256("ledger-wallet-recovery-pow-v1" 0x00 challenge 0x00 subjectDid 0x00 newPublicKey 0x00 nonce)
 *
 * (ASCII, the key as 64 lowercase hex) starts with `bits` zero bits: 2^bits hashes on average,
 * one hash to check. The work is bound to one DID and one new key, so it cannot be spent twice
 * on different requests. A challenge is stateless: its expiry and 16 random bytes, MACed with a
 * secret kept in the wallet's store (so a restart does not void the challenges out there); it
 * may be used until it expires. What a proof is worth is its hash's leading zero bits, which may
 * be more than asked: a request that proved more may take the place of one that proved less.
 */

export const POW_DOMAIN = 'ledger-wallet-recovery-pow-v1';
export const POW_CHALLENGE_TTL_MS = 10 * 60_000;
const NONCE = /^[0-9A-Za-z_-]{1,32}$/;
const MAC_BYTES = 16;
const SECRET_KEY = 'wallet-recovery-pow-secret';

export interface PowChallenge {
  challenge: string;
  /** leading zero bits a proof needs now */
  bits: number;
  algorithm: 'sha256';
  expiresAt: string;
}

export interface PowProof {
  challenge: string;
  nonce: string;
}

export function powHash(challenge: string, did: string, newPublicKey: string, nonce: string): Buffer {
  return createHash('sha256').update([POW_DOMAIN, challenge, did, newPublicKey, nonce].join('\x00'), 'ascii').digest();
}

export function leadingZeroBits(hash: Uint8Array): number {
  let n = 0;
  for (const byte of hash) {
    if (byte === 0) {
      n += 8;
      continue;
    }
    return n + Math.clz32(byte) - 24;
  }
  return n;
}

/** Finds a nonce worth at least `bits` (what a client does; the tests use it too). */
export function solvePow(o: { challenge: string; did: string; newPublicKey: string; bits: number }): PowProof {
  for (let i = 0; ; i++) {
    const nonce = i.toString(36);
    if (leadingZeroBits(powHash(o.challenge, o.did, o.newPublicKey, nonce)) >= o.bits) return { challenge: o.challenge, nonce };
  }
}

export class PowGate {
  private secret: Promise<Uint8Array> | undefined;

  constructor(private readonly o: { store: BinarySublevel; bits: () => number; now: () => number }) {}

  async issue(): Promise<PowChallenge> {
    const expires = this.o.now() + POW_CHALLENGE_TTL_MS;
    const body = Buffer.concat([u64(expires), randomBytes(16)]);
    const challenge = Buffer.concat([body, await this.mac(body)]).toString('base64url');
    return { challenge, bits: this.o.bits(), algorithm: 'sha256', expiresAt: new Date(expires).toISOString() };
  }

  /** The leading zero bits `proof` is worth for this DID and key; 400 when it is missing, not ours, expired or short of the bits. */
  async verify(proof: PowProof | undefined, did: string, newPublicKey: string): Promise<number> {
    if (!proof) throw powError('POW_REQUIRED', 'a recovery initiation needs proof: {challenge, nonce} solving GET /v1/guardian/recovery/challenge, or a guardian\'s approval');
    const raw = Buffer.from(proof.challenge, 'base64url');
    const body = raw.subarray(0, raw.length - MAC_BYTES);
    const ok = raw.length === 24 + MAC_BYTES && raw.toString('base64url') === proof.challenge && timingSafeEqual(raw.subarray(body.length), await this.mac(body));
    if (!ok) throw powError('POW_INVALID', 'proof.challenge is not a challenge this wallet issued');
    if (Number(raw.readBigUInt64BE(0)) <= this.o.now()) throw powError('POW_STALE', 'proof.challenge has expired: get a new one and solve it again');
    const bits = leadingZeroBits(powHash(proof.challenge, did, newPublicKey, proof.nonce));
    const need = this.o.bits();
    if (bits < need) throw powError('POW_INVALID', `the proof's hash has ${bits} leading zero bits; ${need} are needed`);
    return bits;
  }

  private async mac(body: Buffer): Promise<Buffer> {
    this.secret ??= loadOrCreateSecret(this.o.store, SECRET_KEY);
    return createHmac('sha256', await this.secret).update(body).digest().subarray(0, MAC_BYTES);
  }
}

/** `proof` of an initiate body: undefined when absent, else its two strings checked. */
export function parsePowProof(value: unknown): PowProof | undefined {
  if (value === undefined || value === null) return undefined;
  const p = value as Record<string, unknown>;
  const fields = typeof value === 'object' && !Array.isArray(value) ? Object.keys(p) : [];
  const shaped = fields.every((k) => k === 'challenge' || k === 'nonce') && typeof p.challenge === 'string' && p.challenge.length <= 64 && typeof p.nonce === 'string' && NONCE.test(p.nonce);
  if (!shaped) throw powError('POW_INVALID', 'proof must be {challenge, nonce}: the challenge text and 1-32 characters of A-Z a-z 0-9 _ -');
  return { challenge: p.challenge as string, nonce: p.nonce as string };
}

const powError = (code: string, message: string) => invalid(code, message, { field: 'proof' });

function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
}
