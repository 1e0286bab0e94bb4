import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';
import type { ServiceKeySecret } from '../config/service-key-secret.js';
import { LedgerError } from '../errors.js';

/**
 * Secrets sealed under the service-key secret, the one implementation for the plugins' stores
 * (plugins/common/secrets) and the service key files (config/service-key-file.ts):
 * AES-256-GCM with a random 12-byte nonce, under a key derived from the service-key secret with
 * scrypt and a random salt. The scrypt parameters and the salt are written with each envelope,
 * so the defaults can change later without stranding what was sealed before. The associated
 * data (what the secret is and where it belongs) is not stored: the reader supplies it, so a
 * ciphertext moved to another row or file does not open.
 */

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** 32 MiB and some tens of milliseconds per derivation; a key is derived once per salt and process */
export const SCRYPT_DEFAULTS: Readonly<ScryptParams> = { N: 2 ** 15, r: 8, p: 1 };
/** what an envelope may ask for (at most 256 MiB): more would let a doctored row or file exhaust memory at start */
const SCRYPT_MAX: Readonly<ScryptParams> = { N: 2 ** 18, r: 8, p: 4 };

const CIPHER = 'aes-256-gcm';
const NONCE_BYTES = 12;
const SALT_BYTES = 16;
const TAG_BYTES = 16;

export interface SealedEnvelope {
  v: 1;
  kdf: { name: 'scrypt'; salt: string } & ScryptParams;
  cipher: typeof CIPHER;
  nonce: string;
  ciphertext: string;
  tag: string;
}

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

function malformed(what: string): LedgerError {
  return new LedgerError('SEALED_SECRET_MALFORMED', `a sealed secret is malformed: ${what}`, 'internal');
}

function decode(text: unknown, bytes: number | undefined, field: string): Buffer {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_-]*$/.test(text)) throw malformed(`${field} is not base64url`);
  const out = Buffer.from(text, 'base64url');
  if (bytes !== undefined && out.length !== bytes) throw malformed(`${field} has ${out.length} bytes, not ${bytes}`);
  return out;
}

function checkParams(kdf: unknown): ScryptParams & { salt: Buffer } {
  if (typeof kdf !== 'object' || kdf === null) throw malformed('no kdf');
  const k = kdf as Record<string, unknown>;
  if (k.name !== 'scrypt') throw malformed(`unknown kdf ${JSON.stringify(k.name)}`);
  const int = (name: keyof ScryptParams): number => {
    const v = k[name];
    if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > SCRYPT_MAX[name]) throw malformed(`scrypt ${name} ${JSON.stringify(v)} is out of range`);
    return v as number;
  };
  const N = int('N');
  if ((N & (N - 1)) !== 0 || N < 2) throw malformed(`scrypt N ${N} is not a power of two`);
  return { N, r: int('r'), p: int('p'), salt: decode(k.salt, SALT_BYTES, 'salt') };
}

/**
 * Seals and opens under one service-key secret. Derived keys are kept by salt and parameters, so
 * the secrets sealed together (one salt per Sealer) cost one scrypt run to write and to read.
 */
export class Sealer {
  private readonly keys = new Map<string, Promise<Buffer>>();
  private salt: Buffer | undefined;

  constructor(
    private readonly secret: ServiceKeySecret,
    private readonly params: Readonly<ScryptParams> = SCRYPT_DEFAULTS,
  ) {}

  /** where the secret came from, for messages */
  get source(): string {
    return this.secret.source;
  }

  async seal(plaintext: Uint8Array, aad: string): Promise<SealedEnvelope> {
    this.salt ??= randomBytes(SALT_BYTES);
    const { N, r, p } = this.params;
    const key = await this.key({ N, r, p, salt: this.salt });
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv(CIPHER, key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return { v: 1, kdf: { name: 'scrypt', N, r, p, salt: b64(this.salt) }, cipher: CIPHER, nonce: b64(nonce), ciphertext: b64(ciphertext), tag: b64(cipher.getAuthTag()) };
  }

  /** The plaintext, or undefined when the envelope does not authenticate under this secret and `aad`. */
  async open(envelope: unknown, aad: string): Promise<Uint8Array | undefined> {
    if (typeof envelope !== 'object' || envelope === null) throw malformed('not an object');
    const e = envelope as Record<string, unknown>;
    if (e.v !== 1) throw malformed(`unknown version ${JSON.stringify(e.v)}`);
    if (e.cipher !== CIPHER) throw malformed(`unknown cipher ${JSON.stringify(e.cipher)}`);
    const nonce = decode(e.nonce, NONCE_BYTES, 'nonce');
    const tag = decode(e.tag, TAG_BYTES, 'tag');
    const ciphertext = decode(e.ciphertext, undefined, 'ciphertext');
    const key = await this.key(checkParams(e.kdf));
    const decipher = createDecipheriv(CIPHER, key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      return Uint8Array.from(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
    } catch {
      return undefined;
    }
  }

  private key(k: ScryptParams & { salt: Buffer }): Promise<Buffer> {
    const id = `${k.N}:${k.r}:${k.p}:${k.salt.toString('hex')}`;
    let key = this.keys.get(id);
    if (!key) {
      // 128·N·r bytes for the work area, and room to spare
      const maxmem = 256 * k.N * k.r + 1024 * 1024;
      key = new Promise<Buffer>((resolve, reject) => scrypt(this.secret.bytes, k.salt, 32, { N: k.N, r: k.r, p: k.p, maxmem }, (err, out) => (err ? reject(err) : resolve(out))));
      this.keys.set(id, key);
    }
    return key;
  }
}

const sealers = new WeakMap<ServiceKeySecret, Sealer>();

/** One Sealer per secret, so rows and files share derived keys however many parts load them. */
export function sealerFor(secret: ServiceKeySecret): Sealer {
  let sealer = sealers.get(secret);
  if (!sealer) {
    sealer = new Sealer(secret);
    sealers.set(secret, sealer);
  }
  return sealer;
}
