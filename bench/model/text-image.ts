// Images with known text, rendered at run time for the OCR pipeline's tests and bench: an SVG of
// text lines rasterized by resvg in DejaVu Sans from the machine's fonts (Debian's
// fonts-dejavu-core; nothing is downloaded or bundled), as PNG.

import { existsSync } from 'node:fs';
import { Resvg, type ResvgRenderOptions } from '@resvg/resvg-js';

export const TEXT_FONT_FAMILY = 'DejaVu Sans';

export interface TextLine {
  readonly text: string;
  /** Left edge and baseline, in pixels. */
  readonly x: number;
  readonly y: number;
  /** Font size in pixels. */
  readonly size: number;
  readonly color?: string;
}

export interface TextImage {
  readonly width: number;
  readonly height: number;
  readonly lines: readonly TextLine[];
  readonly background?: string;
}

/**
 * Where the font file sits on common distributions. resvg's own search of the system's fonts finds
 * nothing on a host without fontconfig's configuration (seen on a GPU host with the file in
 * /usr/share/fonts), so the file is also named outright when it is in one of these places.
 */
const FONT_FILES = [
  '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu/DejaVuSans.ttf',
  '/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf',
].filter((f) => existsSync(f));

const RENDER_OPTIONS: ResvgRenderOptions = {
  font: {
    loadSystemFonts: true,
    fontFiles: FONT_FILES,
    defaultFontFamily: TEXT_FONT_FAMILY,
    sansSerifFamily: TEXT_FONT_FAMILY,
  },
  logLevel: 'off',
};

const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function textImageSvg(image: TextImage): string {
  const texts = image.lines.map(
    (l) =>
      `<text x="${l.x}" y="${l.y}" font-size="${l.size}" fill="${l.color ?? '#000000'}" ` +
      `font-family="${TEXT_FONT_FAMILY}" xml:space="preserve">${escapeXml(l.text)}</text>`,
  );
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${image.width}" height="${image.height}">` +
    `<rect width="100%" height="100%" fill="${image.background ?? '#ffffff'}"/>` +
    `${texts.join('')}</svg>`
  );
}

/**
 * Why text cannot be rendered here, or undefined when it can: without the font, resvg lays text
 * out as nothing, and an OCR test would fail on an empty image instead of saying why.
 */
export function textFontMissing(): string | undefined {
  const probe =
    '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">' +
    `<text x="2" y="15" font-family="${TEXT_FONT_FAMILY}">0</text></svg>`;
  const found = new Resvg(probe, RENDER_OPTIONS).getBBox();
  return found === undefined || found.width < 1
    ? `no font to render text: resvg found no "${TEXT_FONT_FAMILY}" (Debian package fonts-dejavu-core)`
    : undefined;
}

export function renderTextPng(image: TextImage): Buffer {
  return new Resvg(textImageSvg(image), RENDER_OPTIONS).render().asPng();
}
