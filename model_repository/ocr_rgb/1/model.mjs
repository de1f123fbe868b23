// The bundled OCR pipeline on an RGB tensor: the `ocr` model's module, which reads RGB when it is
// the input that arrives. Each worker imports it afresh, so the two models share code, not state.
export { initialize, execute } from '../../ocr/1/model.mjs';
