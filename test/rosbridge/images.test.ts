/**
 * Camera frames as real cameras publish them: JPEG CompressedImage (image_transport's compressed
 * transport) with its format strings, and 4:3 frames centre-cropped to the policy's square, not
 * squashed. The JPEG bytes are real (encoded with jpeg-js).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import jpeg from 'jpeg-js';
import type { Image } from '../../src/core/types.ts';
import {
  cropToAspect,
  decodeCompressedImage,
  fitImage,
  parseCompressedFormat,
} from '../../src/envs/rosbridgeImages.ts';
import { encodePng } from '../../sim/rosbridge/png.ts';

const RED = [220, 30, 30];
const BLUE = [30, 30, 220];
const GREEN = [30, 200, 40];
const WHITE = [235, 235, 235];

/**
 * 128×96 (4:3): a red band in the 16 columns at the left, a blue one at the right; between them
 * (the centred 96×96 square) green above and white below. Bands on 16-pixel JPEG block edges.
 */
function frame(): Image {
  const width = 128;
  const height = 96;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const c = x < 16 ? RED : x >= 112 ? BLUE : y < 48 ? GREEN : WHITE;
      data.set(c, 3 * (y * width + x));
    }
  return { width, height, data };
}

function toJpeg(image: Image): Uint8Array {
  const rgba = new Uint8Array(image.width * image.height * 4);
  for (let i = 0; i < image.width * image.height; i++) {
    rgba.set(image.data.subarray(3 * i, 3 * i + 3), 4 * i);
    rgba[4 * i + 3] = 255;
  }
  return new Uint8Array(jpeg.encode({ width: image.width, height: image.height, data: rgba }, 95).data);
}

function pixel(image: Image, x: number, y: number): number[] {
  return Array.from(image.data.subarray(3 * (y * image.width + x), 3 * (y * image.width + x) + 3));
}

function near(got: number[], want: number[], tolerance: number, what: string): void {
  assert.ok(
    got.every((v, c) => Math.abs(v - want[c]!) <= tolerance),
    `${what}: got [${got}], want about [${want}]`,
  );
}

test('format strings as image_transport writes them', () => {
  const f = (format: string) => parseCompressedFormat(format, '/camera/image_raw/compressed');
  assert.deepEqual(f('rgb8; jpeg compressed bgr8'), { codec: 'jpeg', swapRedBlue: false });
  assert.deepEqual(f('bgr8; jpeg compressed bgr8'), { codec: 'jpeg', swapRedBlue: false });
  assert.deepEqual(f('mono8; jpeg compressed '), { codec: 'jpeg', swapRedBlue: false });
  assert.deepEqual(f('jpeg'), { codec: 'jpeg', swapRedBlue: false });
  assert.deepEqual(f('JPG'), { codec: 'jpeg', swapRedBlue: false });
  assert.deepEqual(f('png'), { codec: 'png', swapRedBlue: false });
  assert.deepEqual(f('rgba8; png compressed bgra8'), { codec: 'png', swapRedBlue: false });
  // A colour frame compressed as RGB went into a BGR encoder: the file holds red and blue swapped.
  assert.deepEqual(f('rgb8; jpeg compressed rgb8'), { codec: 'jpeg', swapRedBlue: true });
  assert.throws(() => f('16UC1; compressedDepth png'), /\/camera\/image_raw\/compressed: .*is a depth image/);
  assert.throws(() => f('rgb8; tiff compressed bgr8'), /format 'rgb8; tiff compressed bgr8' is not supported/);
  assert.throws(() => f(''), /format '' is not supported/);
});

test('a JPEG CompressedImage decodes to its colours, whatever the format string says about the source', () => {
  const source = frame();
  const bytes = toJpeg(source);
  for (const format of ['rgb8; jpeg compressed bgr8', 'bgr8; jpeg compressed bgr8', 'jpeg']) {
    const image = decodeCompressedImage({ format, data: Buffer.from(bytes).toString('base64') }, '/cam');
    assert.equal(image.width, 128);
    assert.equal(image.height, 96);
    near(pixel(image, 4, 4), RED, 24, `${format}: left band`);
    near(pixel(image, 120, 90), BLUE, 24, `${format}: right band`);
    near(pixel(image, 64, 20), GREEN, 24, `${format}: upper middle`);
    near(pixel(image, 64, 70), WHITE, 24, `${format}: lower middle`);
  }
  // CBOR delivers bytes, not base64.
  const cbor = decodeCompressedImage({ format: 'rgb8; jpeg compressed rgb8', data: bytes }, '/cam');
  near(pixel(cbor, 4, 4), BLUE, 24, "'compressed rgb8': red and blue swapped back");
  // A PNG announced as JPEG, or a damaged JPEG, is an error naming the topic.
  assert.throws(
    () => decodeCompressedImage({ format: 'jpeg', data: encodePng(source) }, '/cam'),
    /\/cam: data is not a JPEG/,
  );
  assert.throws(
    () => decodeCompressedImage({ format: 'jpeg', data: bytes.subarray(0, 200) }, '/cam'),
    /\/cam: JPEG does not decode/,
  );
});

test('a 4:3 frame is centre-cropped to the square the policy sees, then averaged down: not squashed', () => {
  const decoded = decodeCompressedImage({ format: 'rgb8; jpeg compressed bgr8', data: toJpeg(frame()) }, '/cam');
  const crop = cropToAspect(decoded, 16, 16);
  assert.deepEqual([crop.width, crop.height], [96, 96], 'the centred 96×96 square');
  const seen = fitImage(decoded, 16, 16);
  assert.deepEqual([seen.width, seen.height], [16, 16]);
  for (let y = 0; y < 16; y++)
    for (const x of [0, 7, 15]) near(pixel(seen, x, y), y < 8 ? GREEN : WHITE, 24, `pixel (${x}, ${y})`);
  // Exact on lossless input: the crop keeps the square's pixels, the average of 6×6 equal pixels is that colour.
  const exact = fitImage(frame(), 16, 16);
  assert.deepEqual(pixel(exact, 0, 0), GREEN);
  assert.deepEqual(pixel(exact, 15, 15), WHITE);
  // Portrait frames lose their top and bottom instead; a frame of the right shape is left alone.
  const tall = cropToAspect({ width: 4, height: 8, data: new Uint8Array(96) }, 16, 16);
  assert.deepEqual([tall.width, tall.height], [4, 4]);
  const square = { width: 8, height: 8, data: new Uint8Array(192) };
  assert.equal(cropToAspect(square, 16, 16), square);
});
