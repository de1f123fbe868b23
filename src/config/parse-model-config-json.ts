// A ModelConfig given as JSON (the repository load API's `parameters.config`) -> RawModelConfig: the
// same result, schema and checks as the config.pbtxt parser, read from protobuf's JSON mapping.

import {
  MODEL_CONFIG_ROOT,
  MODEL_CONFIG_SCHEMA,
  type RawModelConfig,
} from './generated/model-config-schema.js';
import { parseJsonProto } from './pbtxt/json-parser.js';

/**
 * Parses the JSON text of a ModelConfig. `label` is what errors name the document by (`config JSON`).
 * Fields may be spelled as in the proto (`max_batch_size`) or in lowerCamelCase (`maxBatchSize`);
 * enums as names (any case) or numbers; integers as numbers or strings; NaN and infinities as
 * "NaN", "Infinity", "-Infinity"; null means "not set". Throws CONFIG_SYNTAX naming the field path
 * (`config JSON: input[0].data_type: expected one of ..., got "FP32"`) for anything else, and for
 * text that is not JSON or nests deeper than 100 levels.
 */
export function parseModelConfigJson(text: string, label: string): RawModelConfig {
  const parsed = parseJsonProto(text, MODEL_CONFIG_SCHEMA, MODEL_CONFIG_ROOT, { label });
  // As in parseModelConfig: the reader only produces fields, kinds and enum names the schema allows.
  return parsed as RawModelConfig;
}
