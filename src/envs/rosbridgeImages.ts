/**
 * Camera frames from ROS messages into the toolkit's RGB `Image`: raw sensor_msgs/Image in the
 * common 8-bit encodings, and CompressedImage holding JPEG or PNG (image_transport's `compressed`
 * transport: what most camera drivers publish). A frame of another shape is centre-cropped to the
 * aspect ratio the policy expects (its sides, or top and bottom, are cut off; nothing is
 * squashed), then area-averaged to its size.
 */
import { inflateSync } from 'node:zlib';
import jpeg from 'jpeg-js';
import type { Image } from '../core/types.ts';
import { RosMessageError } from '../ros/messages.ts';
import { readBytes } from './rosbridgeReaders.ts';

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

const CHANNELS: Record<string, { channels: number; order: [number, number, number] }> = {
  rgb8: { channels: 3, order: [0, 1, 2] },
  bgr8: { channels: 3, order: [2, 1, 0] },
  rgba8: { channels: 4, order: [0, 1, 2] },
  bgra8: { channels: 4, order: [2, 1, 0] },
  mono8: { channels: 1, order: [0, 0, 0] },
};

/** sensor_msgs/msg/Image → RGB image. */
export function decodeRawImage(msg: unknown, topic: string): Image {
  if (!isRecord(msg)) throw new RosMessageError(`${topic}: Image must be an object`);
  const { width, height, encoding, step } = msg;
  if (!Number.isInteger(width) || !Number.isInteger(height) || (width as number) < 1 || (height as number) < 1)
    throw new RosMessageError(`${topic}: Image width/height must be positive integers`);
  const w = width as number;
  const h = height as number;
  const layout = typeof encoding === 'string' ? CHANNELS[encoding] : undefined;
  if (!layout)
    throw new RosMessageError(
      `${topic}: Image encoding '${String(encoding)}' is not supported; use one of ${Object.keys(CHANNELS).join(', ')}`,
    );
  const rowBytes = typeof step === 'number' && step > 0 ? step : w * layout.channels;
  if (rowBytes < w * layout.channels)
    throw new RosMessageError(`${topic}: Image step ${rowBytes} is shorter than a row of ${w} ${encoding} pixels`);
  const bytes = readBytes(msg.data, `${topic}.data`);
  if (bytes.length < rowBytes * h)
    throw new RosMessageError(`${topic}: Image has ${bytes.length} bytes; ${w}×${h} ${encoding} needs ${rowBytes * h}`);
  return toRgb(bytes, w, h, rowBytes, layout.channels, layout.order);
}

/** What a CompressedImage's `format` says about its bytes. */
export interface CompressedFormat {
  codec: 'jpeg' | 'png';
  /** The file holds red and blue swapped (see parseCompressedFormat). */
  swapRedBlue: boolean;
}

/**
 * Parse a CompressedImage `format` as image_transport writes it: `<source encoding>; <codec>
 * compressed <encoding>` (`rgb8; jpeg compressed bgr8`, `mono8; png compressed mono8`), or a
 * bare `jpeg` / `png` (older drivers). image_transport hands colour frames to OpenCV's encoder as
 * bgr8, which writes a standard file. Its subscriber reads a colour frame compressed as anything
 * but `bgr…` as one that went into the encoder as RGB, so that file holds red and blue swapped;
 * this decoder does the same.
 */
export function parseCompressedFormat(format: unknown, topic: string): CompressedFormat {
  const text = typeof format === 'string' ? format.trim().toLowerCase() : '';
  const refuse = (why: string) =>
    new RosMessageError(
      `${topic}: CompressedImage format '${String(format)}' ${why}; publish jpeg or png ` +
        `(image_transport's compressed transport) or a raw sensor_msgs/msg/Image`,
    );
  if (text.includes('compresseddepth')) throw refuse('is a depth image, not a camera frame');
  const split = text.indexOf(';');
  const source = split < 0 ? undefined : text.slice(0, split).trim();
  const transport = split < 0 ? text : text.slice(split + 1).trim();
  const m = /^(jpeg|jpg|png)(?:\s+compressed(?:\s+(\S+))?)?$/.exec(transport);
  if (!m) throw refuse('is not supported');
  const colour = source !== undefined && /^(rgb|bgr)a?(8|16)$/.test(source);
  return { codec: m[1] === 'png' ? 'png' : 'jpeg', swapRedBlue: colour && !(m[2] ?? '').startsWith('bgr') };
}

/** sensor_msgs/msg/CompressedImage holding a JPEG or a PNG → RGB image. */
export function decodeCompressedImage(msg: unknown, topic: string): Image {
  if (!isRecord(msg)) throw new RosMessageError(`${topic}: CompressedImage must be an object`);
  const { codec, swapRedBlue } = parseCompressedFormat(msg.format, topic);
  const bytes = readBytes(msg.data, `${topic}.data`);
  const image = codec === 'png' ? decodePng(bytes, topic) : decodeJpeg(bytes, topic);
  if (swapRedBlue)
    for (let i = 0; i < image.data.length; i += 3)
      [image.data[i], image.data[i + 2]] = [image.data[i + 2]!, image.data[i]!];
  return image;
}

/** Decode a baseline or progressive JPEG (grey or colour) with jpeg-js; a damaged file is an error, not a guess. */
export function decodeJpeg(bytes: Uint8Array, what: string): Image {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8)
    throw new RosMessageError(`${what}: data is not a JPEG`);
  try {
    const { width, height, data } = jpeg.decode(bytes, {
      useTArray: true,
      formatAsRGBA: false,
      tolerantDecoding: false,
      maxResolutionInMP: 16.8,
      maxMemoryUsageInMB: 256,
    });
    return { width, height, data };
  } catch (err) {
    throw new RosMessageError(`${what}: JPEG does not decode: ${(err as Error).message}`);
  }
}

function toRgb(
  bytes: Uint8Array,
  w: number,
  h: number,
  rowBytes: number,
  channels: number,
  order: [number, number, number],
): Image {
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const src = y * rowBytes + x * channels;
      const dst = 3 * (y * w + x);
      data[dst] = bytes[src + order[0]]!;
      data[dst + 1] = bytes[src + order[1]]!;
      data[dst + 2] = bytes[src + order[2]]!;
    }
  }
  return { width: w, height: h, data };
}

const PNG_SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];
/** Colour type → channels, for 8-bit non-interlaced PNGs. */
const PNG_CHANNELS: Record<number, { channels: number; order: [number, number, number] }> = {
  0: { channels: 1, order: [0, 0, 0] },
  2: { channels: 3, order: [0, 1, 2] },
  4: { channels: 2, order: [0, 0, 0] },
  6: { channels: 4, order: [0, 1, 2] },
};

/** Decode an 8-bit, non-interlaced grey/RGB(A) PNG (what image_transport's png plugin writes). */
export function decodePng(png: Uint8Array, what: string): Image {
  const bytes = Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b))
    throw new RosMessageError(`${what}: data is not a PNG`);
  let offset = 8;
  let header: { w: number; h: number; depth: number; colour: number; interlace: number } | undefined;
  const idat: Buffer[] = [];
  while (offset + 8 <= bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 8, offset + 8 + length);
    if (body.length !== length) throw new RosMessageError(`${what}: PNG chunk ${type} is truncated`);
    if (type === 'IHDR')
      header = {
        w: body.readUInt32BE(0),
        h: body.readUInt32BE(4),
        depth: body[8]!,
        colour: body[9]!,
        interlace: body[12]!,
      };
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
    offset += 12 + length;
  }
  if (!header) throw new RosMessageError(`${what}: PNG has no IHDR`);
  const layout = PNG_CHANNELS[header.colour];
  if (header.depth !== 8 || header.interlace !== 0 || !layout)
    throw new RosMessageError(`${what}: only 8-bit, non-interlaced grey/RGB/RGBA PNGs are supported`);
  if (header.w < 1 || header.h < 1 || header.w * header.h > 16_777_216)
    throw new RosMessageError(`${what}: PNG size ${header.w}×${header.h} is out of range`);
  const { w, h } = header;
  const bpp = layout.channels;
  const stride = w * bpp;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), { maxOutputLength: (stride + 1) * h + 1 });
  } catch (err) {
    throw new RosMessageError(`${what}: PNG data does not inflate: ${(err as Error).message}`);
  }
  if (raw.length < (stride + 1) * h) throw new RosMessageError(`${what}: PNG data is shorter than ${w}×${h}`);
  const pixels = new Uint8Array(stride * h);
  for (let y = 0; y < h; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const left = i >= bpp ? pixels[row + i - bpp]! : 0;
      const up = y > 0 ? pixels[row - stride + i]! : 0;
      const upLeft = y > 0 && i >= bpp ? pixels[row - stride + i - bpp]! : 0;
      let predictor: number;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = left;
          break;
        case 2:
          predictor = up;
          break;
        case 3:
          predictor = (left + up) >> 1;
          break;
        case 4:
          predictor = paeth(left, up, upLeft);
          break;
        default:
          throw new RosMessageError(`${what}: PNG row ${y} has unknown filter ${filter}`);
      }
      pixels[row + i] = (line[i]! + predictor) & 0xff;
    }
  }
  return toRgb(pixels, w, h, stride, bpp, layout.order);
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The frame the policy sees: centre-cropped to the aspect ratio of width × height, then area-averaged to that size. */
export function fitImage(image: Image, width: number, height: number): Image {
  return resizeImage(cropToAspect(image, width, height), width, height);
}

/** The centred part of `image` with the aspect ratio of width × height (returned as is when it has it). */
export function cropToAspect(image: Image, width: number, height: number): Image {
  const w = Math.min(image.width, Math.round((image.height * width) / height));
  const h = Math.min(image.height, Math.round((image.width * height) / width));
  if (w === image.width && h === image.height) return image;
  const x0 = Math.floor((image.width - w) / 2);
  const y0 = Math.floor((image.height - h) / 2);
  const data = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++)
    data.set(image.data.subarray(3 * ((y0 + y) * image.width + x0), 3 * ((y0 + y) * image.width + x0 + w)), 3 * y * w);
  return { width: w, height: h, data };
}

/** Area-average an image to width × height (returned as is when it already has that size). */
export function resizeImage(image: Image, width: number, height: number): Image {
  if (image.width === width && image.height === height) return image;
  const data = new Uint8Array(width * height * 3);
  const sx = image.width / width;
  const sy = image.height / height;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      for (let c = 0; c < 3; c++) {
        let sum = 0;
        for (let yy = y0; yy < y1; yy++)
          for (let xx = x0; xx < x1; xx++) sum += image.data[3 * (yy * image.width + xx) + c]!;
        data[3 * (y * width + x) + c] = Math.round(sum / ((y1 - y0) * (x1 - x0)));
      }
    }
  }
  return { width, height, data };
}
