// The OCR pipeline's image: decoding an encoded PNG/JPEG (with sharp; sent as bytes or as base64
// text) or taking an RGB UINT8
// tensor [H,W,3] into one shape, { width, height, rgb }, and resampling a region of it into
// normalised planar floats, which both the detector's input and the recogniser's crops are made of.

import { ocrPackage } from './ocr-packages.mjs';

/** Larger images are refused before decoding (sharp checks the header): 40 megapixels. */
const MAX_PIXELS = 40_000_000;

const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47];
const JPEG_MAGIC = [0xff, 0xd8, 0xff];
const BASE64 = /^(?:data:image\/[a-z+.-]+;base64,)?([A-Za-z0-9+/\r\n]+={0,2})\s*$/;

/**
 * The image file in an IMAGE element: its bytes as sent (binary tensor data, gRPC, WebSocket), or,
 * when they are base64 text (optionally a data: URL), decoded, since KServe's JSON carries BYTES
 * as strings and an image file is not UTF-8. A PNG or JPEG never parses as base64 text (their
 * first byte is not ASCII), so the two cannot be confused.
 */
export function imageBytes(element) {
  const starts = (magic) => magic.every((b, i) => element[i] === b);
  if (starts(PNG_MAGIC) || starts(JPEG_MAGIC)) return element;
  const text = Buffer.from(element.buffer, element.byteOffset, element.length).toString('latin1');
  const match = BASE64.exec(text);
  return match === null ? element : new Uint8Array(Buffer.from(match[1], 'base64'));
}

/**
 * Decodes PNG, JPEG (or any format sharp reads) into 8-bit RGB. Transparency is flattened onto
 * white, so text drawn on a transparent canvas reads as dark on light, as the models were trained.
 */
export async function decodeImage(bytes) {
  // The model's initialize() has imported it already (ocr-packages.mjs), so this is a lookup.
  const sharp = await ocrPackage('sharp');
  let decoded;
  try {
    decoded = await sharp(bytes, { limitInputPixels: MAX_PIXELS, failOn: 'error' })
      .flatten({ background: '#ffffff' })
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    throw new Error(
      `expected IMAGE to be an encoded PNG or JPEG of at most ${MAX_PIXELS} pixels; ` +
        `${bytes.length} bytes could not be decoded: ${err instanceof Error ? err.message : err}`,
    );
  }
  const { width, height, channels } = decoded.info;
  if (channels !== 3) {
    throw new Error(`expected the decoded image to have 3 channels (RGB), got ${channels}`);
  }
  const rgb = new Uint8Array(decoded.data.buffer, decoded.data.byteOffset, decoded.data.length);
  return { width, height, rgb };
}

/** An RGB UINT8 tensor [H, W, 3] as an image; the data is kept as is (the caller owns it). */
export function imageFromTensor(shape, data) {
  if (shape.length !== 3 || shape[2] !== 3) {
    throw new Error(`expected an RGB tensor of shape [H, W, 3], got [${shape.join(', ')}]`);
  }
  const [height, width] = shape;
  if (height < 1 || width < 1 || height * width > MAX_PIXELS) {
    throw new Error(`expected an RGB tensor of 1 to ${MAX_PIXELS} pixels, got ${height}x${width}`);
  }
  if (!(data instanceof Uint8Array) || data.length !== height * width * 3) {
    throw new Error(
      `expected ${height * width * 3} UINT8 values for [${shape.join(', ')}], got ${data.length}`,
    );
  }
  return { width, height, rgb: data };
}

/**
 * Resamples `region` ({ x, y, width, height } in image pixels) of `image` to outWidth x outHeight
 * with bilinear interpolation (pixel centres aligned, as OpenCV's INTER_LINEAR, which PaddleOCR
 * resizes with), and writes it as three planes into `target` starting at `offset`, each plane
 * `stride` floats wide (a crop narrower than its batch's width leaves the rest of its rows alone).
 * Channels go in BGR order and value v becomes v * scale[c] + bias[c]: PaddleOCR reads images with
 * OpenCV, so its models were trained on BGR planes. One pass, no intermediate image.
 */
export function resampleToPlanes(image, region, out, target, norm) {
  const { width: w, height: h, rgb } = image;
  const { width: outW, height: outH, offset, stride, planeSize } = out;
  const sx = region.width / outW;
  const sy = region.height / outH;
  const x0s = new Int32Array(outW);
  const x1s = new Int32Array(outW);
  const fxs = new Float32Array(outW);
  for (let dx = 0; dx < outW; dx++) {
    const fx = Math.min(Math.max(region.x + (dx + 0.5) * sx - 0.5, 0), w - 1);
    const x0 = Math.floor(fx);
    x0s[dx] = x0 * 3;
    x1s[dx] = Math.min(x0 + 1, w - 1) * 3;
    fxs[dx] = fx - x0;
  }
  // BGR planes: plane 0 is blue (rgb offset 2), plane 2 is red (offset 0).
  const [sB, sG, sR] = norm.scale;
  const [bB, bG, bR] = norm.bias;
  for (let dy = 0; dy < outH; dy++) {
    const fy = Math.min(Math.max(region.y + (dy + 0.5) * sy - 0.5, 0), h - 1);
    const y0 = Math.floor(fy);
    const wy = fy - y0;
    const row0 = y0 * w * 3;
    const row1 = Math.min(y0 + 1, h - 1) * w * 3;
    const base = offset + dy * stride;
    for (let dx = 0; dx < outW; dx++) {
      const a = row0 + x0s[dx];
      const b = row0 + x1s[dx];
      const c = row1 + x0s[dx];
      const d = row1 + x1s[dx];
      const wx = fxs[dx];
      const w00 = (1 - wx) * (1 - wy);
      const w01 = wx * (1 - wy);
      const w10 = (1 - wx) * wy;
      const w11 = wx * wy;
      const r = rgb[a] * w00 + rgb[b] * w01 + rgb[c] * w10 + rgb[d] * w11;
      const g = rgb[a + 1] * w00 + rgb[b + 1] * w01 + rgb[c + 1] * w10 + rgb[d + 1] * w11;
      const bl = rgb[a + 2] * w00 + rgb[b + 2] * w01 + rgb[c + 2] * w10 + rgb[d + 2] * w11;
      target[base + dx] = bl * sB + bB;
      target[base + planeSize + dx] = g * sG + bG;
      target[base + 2 * planeSize + dx] = r * sR + bR;
    }
  }
}
