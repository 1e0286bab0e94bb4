import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/**
 * A worker thread of the image pool: decodes a JPEG or PNG in full, which proves the bytes are
 * an image and not only a header, and reports its dimensions. Decoding is CPU-bound, so it runs
 * here and never on the event loop that serves requests.
 */

export interface DecodeTask {
  mediaType: 'image/jpeg' | 'image/png';
  bytes: Uint8Array;
  /** the decoder refuses images above this many megapixels (its own allocation bound) */
  maxMegapixels: number;
}

export interface Decoded {
  width: number;
  height: number;
}

export function decodeImage(task: DecodeTask): Decoded {
  if (task.mediaType === 'image/jpeg') {
    const img = jpeg.decode(task.bytes, { useTArray: true, formatAsRGBA: false, maxResolutionInMP: task.maxMegapixels, maxMemoryUsageInMB: Math.ceil(task.maxMegapixels * 8) });
    return { width: img.width, height: img.height };
  }
  const png = PNG.sync.read(Buffer.from(task.bytes.buffer, task.bytes.byteOffset, task.bytes.byteLength));
  return { width: png.width, height: png.height };
}

export default function run(task: DecodeTask): Decoded {
  return decodeImage(task);
}
