import jpeg from 'jpeg-js';

/**
 * Test images that really decode: a JPEG of `width`×`height` with a gradient and a seed-dependent
 * tint, so two images differ in their bytes (and their SHA-256).
 */
export function testJpeg(width = 640, height = 400, seed = 1): Buffer {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = (seed * 37) % 256;
      data[i + 3] = 255;
    }
  }
  return jpeg.encode({ data, width, height }, 80).data;
}
