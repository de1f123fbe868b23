// The README plot's PNG: a real PNG at twice the SVG's size, with the plot and its text drawn.
// Pixels are read back by decoding the PNG with resvg itself (an SVG whose only element is it).

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Resvg } from '@resvg/resvg-js';
import { niceAxis, type PlotModel } from '../../../bench/report/plot-model.js';
import { PNG_SCALE, plotPng } from '../../../bench/report/plot-png.js';
import { plotSvg } from '../../../bench/report/svg-plot.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const BLUE = [0x25, 0x63, 0xeb];

// No markers: the marker line is near-black, so here only text is near-black.
const model: PlotModel = {
  title: 'tiny, batch 1: latency vs throughput',
  xLabel: 'throughput (inferences/s)',
  yLabel: 'latency (ms)',
  series: [
    {
      label: 'infernode p99',
      color: '#2563eb',
      dashed: false,
      points: [
        { x: 100, y: 2, label: 'c1' },
        { x: 400, y: 5, label: 'c8' },
        { x: 600, y: 18, label: 'c64' },
      ],
    },
    {
      label: 'infernode p50',
      color: '#2563eb',
      dashed: true,
      points: [
        { x: 100, y: 1, label: 'c1' },
        { x: 400, y: 3, label: 'c8' },
        { x: 600, y: 9, label: 'c64' },
      ],
    },
  ],
  markers: [],
  x: niceAxis(0, 600),
  y: niceAxis(0, 18),
};

interface Decoded {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row from the top. */
  readonly pixels: Buffer;
}

function decode(png: Buffer, width: number, height: number): Decoded {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    `<image width="${width}" height="${height}" href="data:image/png;base64,${png.toString('base64')}"/></svg>`;
  const image = new Resvg(svg, { font: { loadSystemFonts: false } }).render();
  return { width: image.width, height: image.height, pixels: image.pixels };
}

/** Pixels in the rectangle (SVG units, scaled to the PNG) for which `test` holds. */
function count(
  img: Decoded,
  test: (r: number, g: number, b: number) => boolean,
  box = { x: 0, y: 0, w: img.width / PNG_SCALE, h: img.height / PNG_SCALE },
): number {
  let n = 0;
  for (let y = box.y * PNG_SCALE; y < (box.y + box.h) * PNG_SCALE; y += 1) {
    for (let x = box.x * PNG_SCALE; x < (box.x + box.w) * PNG_SCALE; x += 1) {
      const i = (y * img.width + x) * 4;
      if (test(img.pixels[i] ?? 0, img.pixels[i + 1] ?? 0, img.pixels[i + 2] ?? 0)) n += 1;
    }
  }
  return n;
}

void describe('plotPng', () => {
  const svg = plotSvg(model);
  const svgWidth = Number(/width="(\d+)"/.exec(svg)?.[1]);
  const svgHeight = Number(/height="(\d+)"/.exec(svg)?.[1]);
  let png: Buffer = Buffer.alloc(0);
  let img: Decoded = { width: 0, height: 0, pixels: Buffer.alloc(0) };
  before(() => {
    png = plotPng(model);
    img = decode(png, svgWidth * PNG_SCALE, svgHeight * PNG_SCALE);
  });

  void it('is a PNG the size of the SVG times PNG_SCALE', () => {
    assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.ok(svgWidth > 0 && svgHeight > 0, 'the SVG states its size');
    assert.equal(png.readUInt32BE(16), svgWidth * PNG_SCALE);
    assert.equal(png.readUInt32BE(20), svgHeight * PNG_SCALE);
  });

  void it('is not blank: the series are drawn in their colour', () => {
    const nonWhite = count(img, (r, g, b) => r < 250 || g < 250 || b < 250);
    assert.ok(nonWhite > img.width * img.height * 0.01, `only ${nonWhite} non-white pixels`);
    const blue = count(
      img,
      (r, g, b) =>
        Math.abs(r - (BLUE[0] ?? 0)) < 8 &&
        Math.abs(g - (BLUE[1] ?? 0)) < 8 &&
        Math.abs(b - (BLUE[2] ?? 0)) < 8,
    );
    assert.ok(blue > 500, `only ${blue} pixels in the series colour`);
  });

  void it('sets the text in a font: the title band has ink', () => {
    const ink = (r: number, g: number, b: number): boolean => r < 80 && g < 80 && b < 80;
    // The title's baseline is at y=24, from x=70; nothing else is drawn above the plot area.
    const title = count(img, ink, { x: 60, y: 8, w: 300, h: 22 });
    assert.ok(title > 300, `only ${title} dark pixels where the title is`);
  });
});
