// The latency-vs-throughput plot as SVG: inline in the HTML report, and rasterized by plot-png.ts
// for the README.

import { axisFraction, tickLabel, type PlotModel } from './plot-model.js';

/**
 * The family the PNG is set in (plot-png.ts maps the generic families to it). Browsers without it
 * fall back to their own sans-serif.
 */
export const PLOT_FONT_FAMILY = 'DejaVu Sans';

const H = 500;
/** The plot area's width; the legend to its right is as wide as its longest label. */
const PW = 560;
const M = { left: 70, top: 40, bottom: 56 };
/** Legend entry: 16 gap, a 26 line sample, 6 gap, then the label. */
const LEGEND_TEXT_X = 48;
/**
 * Text width is not measurable here, so labels are sized from an upper estimate of a character's
 * advance at 12 px (DejaVu Sans averages about 7): wide enough that no label is clipped.
 */
const CHAR_WIDTH = 7.5;

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function plotSvg(model: PlotModel): string {
  const longest = Math.max(0, ...model.series.map((s) => s.label.length));
  const W = Math.ceil(M.left + PW + LEGEND_TEXT_X + longest * CHAR_WIDTH + 12);
  const pw = PW;
  const ph = H - M.top - M.bottom;
  const sx = (x: number): number => M.left + axisFraction(model.x, x) * pw;
  const sy = (y: number): number => M.top + ph - axisFraction(model.y, y) * ph;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="'${PLOT_FONT_FAMILY}', sans-serif" font-size="12">`,
  );
  parts.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  parts.push(
    `<text x="${M.left}" y="24" font-size="15" font-weight="bold">${esc(model.title)}</text>`,
  );
  for (const t of model.y.ticks) {
    const y = sy(t).toFixed(1);
    parts.push(`<line x1="${M.left}" x2="${M.left + pw}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`);
    parts.push(
      `<text x="${M.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${tickLabel(t)}</text>`,
    );
  }
  for (const t of model.x.ticks) {
    const x = sx(t).toFixed(1);
    parts.push(`<line x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + ph}" stroke="#f3f4f6"/>`);
    parts.push(`<text x="${x}" y="${M.top + ph + 16}" text-anchor="middle">${tickLabel(t)}</text>`);
  }
  parts.push(
    `<rect x="${M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#9ca3af"/>`,
  );
  parts.push(
    `<text x="${M.left + pw / 2}" y="${H - 14}" text-anchor="middle">${esc(model.xLabel)}</text>`,
  );
  parts.push(
    `<text transform="translate(18 ${M.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(model.yLabel)}</text>`,
  );
  for (const m of model.markers) {
    const x = sx(m.x).toFixed(1);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${M.top}" y2="${M.top + ph}" stroke="#111827" stroke-dasharray="2 4"/>`,
    );
    parts.push(
      `<text x="${Number(x) - 4}" y="${M.top + 12}" text-anchor="end" fill="#111827">${esc(m.label)}</text>`,
    );
  }
  for (const s of model.series) {
    const d = s.points
      .map((p, i) => `${i === 0 ? 'M' : 'L'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`)
      .join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="${s.dashed ? 1.5 : 2.5}"${dash}/>`,
    );
    for (const p of s.points) {
      parts.push(
        `<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="${s.dashed ? 2.5 : 3.5}" fill="${s.color}">` +
          `<title>${esc(`${s.label}, ${p.label}: ${tickLabel(p.x)} infer/s, ${p.y.toPrecision(3)} ms`)}</title></circle>`,
      );
    }
  }
  model.series.forEach((s, i) => {
    const y = M.top + 10 + i * 20;
    const x = M.left + pw + 16;
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(
      `<line x1="${x}" x2="${x + 26}" y1="${y}" y2="${y}" stroke="${s.color}" stroke-width="2.5"${dash}/>`,
    );
    parts.push(
      `<text x="${M.left + pw + LEGEND_TEXT_X}" y="${y}" dominant-baseline="middle">${esc(s.label)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}
