import { generateSeed, keyPairFromSeed, sign, verifyOpenSsl } from '../../node/crypto/ed25519.js';

/**
 * The cost of one Ed25519 verification on this machine, now: the unit a bench divides its CPU
 * figures by, so that they hold from machine to machine (these differ up to 2x in speed; a ratio
 * taken in the same run does not). Timed with node:crypto's verifier (cached public keys), which
 * the node checked every signature with until it put libsodium in front (ed25519.ts), so that the
 * unit stays the one of every figure before; in CPU time of this process, as the validators' CPU
 * is counted, so time spent waiting for a core counts in neither.
 */

export interface Ed25519Timing {
  /** median CPU µs per verification over the batches */
  us: number;
  batches: number;
  per_batch: number;
}

/** Messages about the size of a transfer's signing bytes, under a few keys. */
const KEYS = 16;
const MESSAGE_BYTES = 160;

/** Median over `batches` of `perBatch` verifications, after one batch to warm up. */
export function timeEd25519Verify(batches = 7, perBatch = 2000): Ed25519Timing {
  const keys = Array.from({ length: KEYS }, () => keyPairFromSeed(generateSeed()));
  const items = Array.from({ length: 64 }, (_, i) => {
    const key = keys[i % KEYS]!;
    const message = new Uint8Array(MESSAGE_BYTES).fill(i);
    return { publicKey: key.publicKey, message, signature: sign(key.seed, message) };
  });
  const batch = (): number => {
    const t0 = process.cpuUsage();
    for (let i = 0; i < perBatch; i++) {
      const { publicKey, message, signature } = items[i % items.length]!;
      if (!verifyOpenSsl(publicKey, message, signature)) throw new Error('a valid Ed25519 signature did not verify');
    }
    const t = process.cpuUsage(t0);
    return (t.user + t.system) / perBatch;
  };
  batch();
  const times = Array.from({ length: batches }, batch).sort((a, b) => a - b);
  return { us: round(times[Math.floor(times.length / 2)]!, 2), batches, per_batch: perBatch };
}

/** Timings taken before and after a load window, and their mean: the unit used for that window. */
export function ed25519Unit(before: Ed25519Timing, after: Ed25519Timing) {
  return { verify_us: round((before.us + after.us) / 2, 2), before_us: before.us, after_us: after.us, batches: before.batches, per_batch: before.per_batch };
}

/** CPU milliseconds expressed in Ed25519 verifications of `verifyUs` µs each. */
export function inEd25519(ms: number | null, verifyUs: number): number | null {
  return ms === null || !(verifyUs > 0) ? null : round((ms * 1000) / verifyUs, 1);
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
