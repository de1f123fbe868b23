// The latency-vs-throughput plot rasterized into an RGB bitmap (then a PNG) with no browser and no
// native code: straight lines, dots and the 5x7 font, drawn from the same PlotModel as the SVG.

import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphPixel } from './bitmap-font.js';
import { encodePng } from './png-encoder.js';
import { axisFraction, tickLabel, type PlotModel } from './plot-model.js';

type Rgb = readonly [number, number, number];

function hex(color: string): Rgb {
  const n = parseInt(color.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export class Canvas {
  readonly pixels: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
  ) {
    this.pixels = new Uint8Array(width * height * 3).fill(255);
  }

  set(x: number, y: number, c: Rgb): void {
    const xi = Math.round(x);
    const yi = Math.round(y);
    if (xi < 0 || yi < 0 || xi >= this.width || yi >= this.height) return;
    const i = (yi * this.width + xi) * 3;
    this.pixels[i] = c[0];
    this.pixels[i + 1] = c[1];
    this.pixels[i + 2] = c[2];
  }

  rect(x: number, y: number, w: number, h: number, c: Rgb): void {
    for (let j = 0; j < h; j += 1) for (let i = 0; i < w; i += 1) this.set(x + i, y + j, c);
  }

  /** A line `thickness` px wide; dashed lines draw 6 px on, 4 px off along their length. */
  line(
    x0: number,
    y0: number,
    x1: number,
    y1: number,
    c: Rgb,
    thickness = 1,
    dashed = false,
  ): void {
    const len = Math.hypot(x1 - x0, y1 - y0);
    const steps = Math.max(1, Math.ceil(len * 2));
    const half = (thickness - 1) / 2;
    for (let s = 0; s <= steps; s += 1) {
      const t = s / steps;
      if (dashed && (t * len) % 10 >= 6) continue;
      const x = x0 + (x1 - x0) * t;
      const y = y0 + (y1 - y0) * t;
      for (let dy = -half; dy <= half; dy += 1)
        for (let dx = -half; dx <= half; dx += 1) this.set(x + dx, y + dy, c);
    }
  }

  /** Text at (x, y) = top-left, each font pixel drawn as scale x scale. */
  text(x: number, y: number, s: string, c: Rgb, scale = 1): number {
    let cx = x;
    for (const ch of s) {
      for (let gy = 0; gy < GLYPH_HEIGHT; gy += 1) {
        for (let gx = 0; gx < GLYPH_WIDTH; gx += 1) {
          if (glyphPixel(ch, gx, gy)) this.rect(cx + gx * scale, y + gy * scale, scale, scale, c);
        }
      }
      cx += (GLYPH_WIDTH + 1) * scale;
    }
    return cx - x;
  }
}

export function textWidth(s: string, scale = 1): number {
  return [...s].length * (GLYPH_WIDTH + 1) * scale;
}

const W = 960;
const H = 560;
const M = { left: 80, right: 260, top: 50, bottom: 60 };
const GRID: Rgb = [229, 231, 235];
const AXIS: Rgb = [156, 163, 175];
const INK: Rgb = [17, 24, 39];

export function plotPng(model: PlotModel): Buffer {
  const c = new Canvas(W, H);
  const pw = W - M.left - M.right;
  const ph = H - M.top - M.bottom;
  const sx = (x: number): number => M.left + axisFraction(model.x, x) * pw;
  const sy = (y: number): number => M.top + ph - axisFraction(model.y, y) * ph;
  c.text(M.left, 16, model.title, INK, 2);
  for (const t of model.y.ticks) {
    const y = sy(t);
    c.line(M.left, y, M.left + pw, y, GRID);
    const label = tickLabel(t);
    c.text(M.left - 8 - textWidth(label), y - 3, label, INK);
  }
  for (const t of model.x.ticks) {
    const x = sx(t);
    c.line(x, M.top, x, M.top + ph, GRID);
    const label = tickLabel(t);
    c.text(x - textWidth(label) / 2, M.top + ph + 8, label, INK);
  }
  c.line(M.left, M.top, M.left + pw, M.top, AXIS);
  c.line(M.left, M.top + ph, M.left + pw, M.top + ph, AXIS);
  c.line(M.left, M.top, M.left, M.top + ph, AXIS);
  c.line(M.left + pw, M.top, M.left + pw, M.top + ph, AXIS);
  c.text(M.left + pw / 2 - textWidth(model.xLabel) / 2, H - 28, model.xLabel, INK);
  c.text(8, M.top - 16, model.yLabel, INK);
  for (const m of model.markers) {
    const x = sx(m.x);
    c.line(x, M.top, x, M.top + ph, INK, 1, true);
    c.text(x - 4 - textWidth(m.label), M.top + 6, m.label, INK);
  }
  for (const s of model.series) {
    const color = hex(s.color);
    s.points.forEach((p, i) => {
      const prev = s.points[i - 1];
      if (prev !== undefined)
        c.line(sx(prev.x), sy(prev.y), sx(p.x), sy(p.y), color, s.dashed ? 1 : 3, s.dashed);
    });
    for (const p of s.points) c.rect(sx(p.x) - 3, sy(p.y) - 3, 7, 7, color);
  }
  model.series.forEach((s, i) => {
    const y = M.top + 10 + i * 22;
    const x = M.left + pw + 16;
    c.line(x, y, x + 28, y, hex(s.color), s.dashed ? 1 : 3, s.dashed);
    c.text(x + 36, y - 3, s.label, INK);
  });
  return encodePng(W, H, c.pixels);
}
