import { createHash } from 'node:crypto';
import t from 'tap';
import { LedgerError } from '../../../../../node/errors.js';
import { createImageChecker, headerDimensions, MAX_IMAGE_BYTES, sniffImage, type ImageChecker } from '../../../../../plugins/kyc/verification/checks/image.js';
import { jpegImage, pngImage } from '../harness.js';

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof LedgerError ? `${err.code}:${err.kind}` : String(err);
  }
}

const jpg = jpegImage(320, 240);
const png = pngImage(256, 200);

t.test('type by the bytes, dimensions from the header', async (t) => {
  t.equal(sniffImage(jpg), 'image/jpeg');
  t.equal(sniffImage(png), 'image/png');
  t.equal(sniffImage(Buffer.from('GIF89a……')), undefined);
  t.equal(sniffImage(Buffer.from('%PDF-1.7')), undefined);
  t.equal(sniffImage(new Uint8Array(0)), undefined);
  t.same(headerDimensions(jpg, 'image/jpeg'), { width: 320, height: 240 });
  t.same(headerDimensions(png, 'image/png'), { width: 256, height: 200 });
  t.equal(headerDimensions(jpg.subarray(0, 20), 'image/jpeg'), undefined);
});

for (const threads of [0, 1]) {
  t.test(`checks (${threads ? 'worker pool' : 'inline'})`, async (t) => {
    const checker: ImageChecker = createImageChecker({ threads });
    t.teardown(() => checker.close());
    const info = await checker.check(jpg, 'document', 'file');
    t.same(info, { mediaType: 'image/jpeg', width: 320, height: 240, bytes: jpg.length, sha256: createHash('sha256').update(jpg).digest('hex') });
    t.equal((await checker.check(png, 'document', 'file')).mediaType, 'image/png');
    t.equal(await codeOf(checker.check(Buffer.from('not an image at all'), 'document', 'file')), 'IMAGE_TYPE_UNSUPPORTED:invalid');
    // a JPEG header whose scan data is garbage: the magic is right, the image is not
    const broken = Buffer.from(jpg);
    const sos = broken.indexOf(Buffer.from([0xff, 0xda]));
    broken.fill(0xff, sos + 20, broken.length - 2);
    t.equal(await codeOf(checker.check(broken, 'document', 'file')), 'IMAGE_UNDECODABLE:invalid');
    // a truncated PNG: IHDR present, the data not
    t.equal(await codeOf(checker.check(png.subarray(0, 60), 'document', 'file')), 'IMAGE_UNDECODABLE:invalid');
    t.equal(await codeOf(checker.check(jpegImage(150, 400), 'document', 'file')), 'IMAGE_TOO_SMALL:invalid');
    t.equal(await codeOf(checker.check(jpegImage(150, 400), 'frame', 'frames[0]')), 'ok', 'frames need only 64x64');
    t.equal(await codeOf(checker.check(pngImage(63, 100), 'frame', 'frames[0]')), 'IMAGE_TOO_SMALL:invalid');
  });
}

t.test('a huge claimed size is refused before decoding; over 10 MB is a limit error', async (t) => {
  const checker = createImageChecker({ threads: 0 });
  // IHDR claiming 60000x60000: refused from the header, nothing allocated
  const big = Buffer.from(png);
  big.writeUInt32BE(60_000, 16);
  big.writeUInt32BE(60_000, 20);
  t.equal(await codeOf(checker.check(big, 'document', 'file')), 'IMAGE_DIMENSIONS_TOO_LARGE:invalid');
  const huge = Buffer.alloc(MAX_IMAGE_BYTES + 1);
  jpg.copy(huge);
  t.equal(await codeOf(checker.check(huge, 'document', 'file')), 'IMAGE_TOO_LARGE:limit');
  const err = await checker.check(Buffer.from('nope'), 'frame', 'frames[2]').catch((e: LedgerError) => e);
  t.same((err as LedgerError).data, { field: 'frames[2]' });
});
