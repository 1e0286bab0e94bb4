import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { LedgerError } from '../../../../node/errors.js';
import { decodeImage, type DecodeTask, type Decoded } from './image-worker.js';

/**
 * The automatic image checks every upload gets: the type is judged by the bytes (JPEG or PNG
 * magic), never by the file name or the declared type; the header's dimensions are read and
 * bounded before anything is allocated; then the whole image is decoded in a bounded worker
 * pool, which proves it is an image, and its dimensions are checked against the minimum for
 * its purpose. Every refusal is a LedgerError with a stable code (413 for size, 400 otherwise).
 */

export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
/** the smallest side a document photo may have (a smaller one cannot be read) and a liveness frame */
export const MIN_SIDE = { document: 200, frame: 64 } as const;
/** the most pixels an image may have: bounds what decoding allocates (a 10 MB PNG of zeros can claim gigapixels) */
export const MAX_MEGAPIXELS = 50;

export type ImagePurpose = keyof typeof MIN_SIDE;
export type ImageMediaType = 'image/jpeg' | 'image/png';

export interface ImageInfo {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  bytes: number;
  sha256: string;
}

export interface ImageChecker {
  /** checks `bytes` as an image for `purpose`; `field` names the form field in errors */
  check(bytes: Uint8Array, purpose: ImagePurpose, field: string): Promise<ImageInfo>;
  close(): Promise<void>;
}

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** The media type by the bytes' magic, or undefined. */
export function sniffImage(bytes: Uint8Array): ImageMediaType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 8 && PNG_MAGIC.every((b, i) => bytes[i] === b)) return 'image/png';
  return undefined;
}

/** Width and height from the header (PNG IHDR, JPEG SOFn), without decoding; undefined if absent. */
export function headerDimensions(bytes: Uint8Array, type: ImageMediaType): Decoded | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (type === 'image/png') {
    // the first chunk is IHDR: length(4) 'IHDR'(4) width(4) height(4)
    if (bytes.length < 24 || String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return undefined;
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) return undefined;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) {
      i += 2; // markers without a length
      continue;
    }
    const length = view.getUint16(i + 2);
    // SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC): precision(1) height(2) width(2)
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (i + 9 > bytes.length) return undefined;
      return { width: view.getUint16(i + 7), height: view.getUint16(i + 5) };
    }
    if (marker === 0xda) return undefined; // scan data before any frame header
    i += 2 + length;
  }
  return undefined;
}

const fail = (code: string, message: string, field: string, kind: 'invalid' | 'limit' = 'invalid') => new LedgerError(code, message, kind, { field });

/** The checks around a decoder: `decode` runs the full decode (a worker pool, or inline). */
export function imageChecks(decode: (task: DecodeTask) => Promise<Decoded>): (bytes: Uint8Array, purpose: ImagePurpose, field: string) => Promise<ImageInfo> {
  return async (bytes, purpose, field) => {
    if (bytes.length > MAX_IMAGE_BYTES) throw fail('IMAGE_TOO_LARGE', `${field}: an image is at most ${MAX_IMAGE_BYTES} bytes (got ${bytes.length})`, field, 'limit');
    const mediaType = sniffImage(bytes);
    if (!mediaType) throw fail('IMAGE_TYPE_UNSUPPORTED', `${field}: only JPEG and PNG images are accepted, judged by their content; this file is neither`, field);
    const kind = mediaType === 'image/jpeg' ? 'JPEG' : 'PNG';
    const header = headerDimensions(bytes, mediaType);
    if (!header) throw fail('IMAGE_UNDECODABLE', `${field}: the ${kind} has no readable image header`, field);
    if (header.width * header.height > MAX_MEGAPIXELS * 1_000_000) {
      throw fail('IMAGE_DIMENSIONS_TOO_LARGE', `${field}: the image is ${header.width}x${header.height}; at most ${MAX_MEGAPIXELS} megapixels are accepted`, field);
    }
    let decoded: Decoded;
    try {
      decoded = await decode({ mediaType, bytes, maxMegapixels: MAX_MEGAPIXELS });
    } catch (err) {
      if (err instanceof LedgerError) throw err;
      throw fail('IMAGE_UNDECODABLE', `${field}: the ${kind} does not decode (${String((err as Error)?.message ?? err).slice(0, 120)})`, field);
    }
    const min = MIN_SIDE[purpose];
    if (decoded.width < min || decoded.height < min) {
      throw fail('IMAGE_TOO_SMALL', `${field}: the image is ${decoded.width}x${decoded.height}; a ${purpose} image is at least ${min}x${min} pixels`, field);
    }
    return { mediaType, width: decoded.width, height: decoded.height, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  };
}

/**
 * The checker. `threads: 0` decodes on the calling thread (unit tests); otherwise a pool of that
 * many workers with a bounded queue: past it a check fails with IMAGE_CHECKS_BUSY (503).
 */
export function createImageChecker(opts: { threads: number; maxQueue?: number }): ImageChecker {
  if (opts.threads <= 0) return { check: imageChecks(async (task) => decodeImage(task)), close: async () => {} };
  // Under the TypeScript loader (tests) this module is a .ts file; built, it is .js.
  const self = fileURLToPath(import.meta.url);
  const filename = self.replace(/image\.(ts|js)$/, (_m, ext: string) => `image-worker.${ext}`);
  const maxQueue = opts.maxQueue ?? 64;
  const pool = new Piscina({ filename, minThreads: opts.threads, maxThreads: opts.threads, maxQueue, idleTimeout: 30_000 });
  const decode = async (task: DecodeTask): Promise<Decoded> => {
    if (pool.queueSize >= maxQueue) throw new LedgerError('IMAGE_CHECKS_BUSY', `the image checks are busy (${maxQueue} waiting); retry shortly`, 'disabled');
    return (await pool.run(task)) as Decoded;
  };
  return { check: imageChecks(decode), close: () => pool.destroy() };
}
