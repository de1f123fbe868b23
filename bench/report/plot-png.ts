// The latency-vs-throughput plot as a PNG for the README: the HTML report's SVG (svg-plot.ts),
// rasterized by resvg, so both pictures are one drawing and the PNG's text is set in a real font.

import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';
import type { PlotModel } from './plot-model.js';
import { PLOT_FONT_FAMILY, plotSvg } from './svg-plot.js';

/** Device pixels per SVG unit: twice the SVG's size, so the README plot stays sharp on HiDPI. */
export const PNG_SCALE = 2;

// resvg reads the machine's fonts (no font is downloaded or bundled). Its own default for the
// generic `sans-serif` is Arial and, failing that, the first font it finds, which on Debian is a
// maths font: the generic families are pointed at the plot's family explicitly.
const RENDER_OPTIONS: ResvgRenderOptions = {
  font: {
    loadSystemFonts: true,
    defaultFontFamily: PLOT_FONT_FAMILY,
    sansSerifFamily: PLOT_FONT_FAMILY,
  },
  fitTo: { mode: 'zoom', value: PNG_SCALE },
  background: '#ffffff',
  logLevel: 'off',
};

/**
 * A plot without its labels would be published without complaint, so a probe first checks that
 * some font on the machine draws text at all: with none, resvg lays text out as nothing and the
 * probe has no bounding box.
 */
let fontChecked = false;
function assertFontAvailable(): void {
  if (fontChecked) return;
  const probe = `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><text x="2" y="15" font-family="${PLOT_FONT_FAMILY}, sans-serif">0</text></svg>`;
  if (new Resvg(probe, RENDER_OPTIONS).getBBox() === undefined) {
    throw new Error(
      `no font to draw the plot's text: resvg found no system font (expected "${PLOT_FONT_FAMILY}", Debian package fonts-dejavu-core)`,
    );
  }
  fontChecked = true;
}

/** Rasterizes an SVG document at PNG_SCALE, with the plot's font rules. */
export function svgToPng(svg: string): Buffer {
  assertFontAvailable();
  return new Resvg(svg, RENDER_OPTIONS).render().asPng();
}

export function plotPng(model: PlotModel): Buffer {
  return svgToPng(plotSvg(model));
}
