// The README plot's PNG: CRC-32, chunk layout, and pixels that decode back unchanged.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inflateSync } from 'node:zlib';
import { crc32, encodePng } from '../../../bench/report/png-encoder.js';
import { Canvas } from '../../../bench/report/raster-plot.js';

interface Chunk {
  type: string;
  data: Buffer;
  crcOk: boolean;
}

function chunks(png: Buffer): Chunk[] {
  const out: Chunk[] = [];
  let at = 8;
  while (at < png.length) {
    const len = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + len);
    const crc = png.readUInt32BE(at + 8 + len);
    out.push({ type, data, crcOk: crc === crc32(png.subarray(at + 4, at + 8 + len)) });
    at += 12 + len;
  }
  return out;
}

void describe('crc32', () => {
  void it('gives the standard check value', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(crc32(new Uint8Array(0)), 0);
  });
});

void describe('encodePng', () => {
  void it('writes signature, IHDR, IDAT and IEND with valid CRCs, and pixels that inflate back', () => {
    const width = 3;
    const height = 2;
    const rgb = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 29) % 256);
    const png = encodePng(width, height, rgb);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const cs = chunks(png);
    assert.deepEqual(
      cs.map((c) => c.type),
      ['IHDR', 'IDAT', 'IEND'],
    );
    assert.ok(cs.every((c) => c.crcOk));
    const ihdr = cs[0]?.data as Buffer;
    assert.equal(ihdr.readUInt32BE(0), width);
    assert.equal(ihdr.readUInt32BE(4), height);
    assert.deepEqual([...ihdr.subarray(8)], [8, 2, 0, 0, 0]);
    const raw = inflateSync(cs[1]?.data as Buffer);
    assert.equal(raw.length, (width * 3 + 1) * height);
    for (let y = 0; y < height; y += 1) {
      assert.equal(raw[y * (width * 3 + 1)], 0, 'filter type none');
      assert.deepEqual(
        [...raw.subarray(y * (width * 3 + 1) + 1, (y + 1) * (width * 3 + 1))],
        [...rgb.subarray(y * width * 3, (y + 1) * width * 3)],
      );
    }
  });

  void it('refuses a pixel buffer of the wrong size, saying what it expected', () => {
    assert.throws(() => encodePng(2, 2, new Uint8Array(5)), /expected 12 RGB bytes for 2x2, got 5/);
  });
});

void describe('Canvas', () => {
  void it('draws lines and text inside its bounds only', () => {
    const c = new Canvas(20, 10);
    c.line(-5, 5, 30, 5, [255, 0, 0]);
    c.text(1, 1, 'P99', [0, 0, 0]);
    const px = (x: number, y: number): number[] => [
      ...c.pixels.subarray((y * 20 + x) * 3, (y * 20 + x) * 3 + 3),
    ];
    assert.deepEqual(px(0, 5), [255, 0, 0]);
    assert.deepEqual(px(19, 5), [255, 0, 0]);
    assert.deepEqual(px(0, 0), [255, 255, 255]);
    // 'P' starts with a full-height left stroke: column 1, rows 1..7 (drawn over the line at row 5).
    assert.deepEqual(px(1, 1), [0, 0, 0]);
    assert.deepEqual(px(1, 7), [0, 0, 0]);
  });
});
