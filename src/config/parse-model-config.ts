// config.pbtxt text -> RawModelConfig: the text-format parser run against Triton's ModelConfig schema.
// The result holds exactly what the file says (no defaults); autocomplete and normalize come next.

import {
  MODEL_CONFIG_ROOT,
  MODEL_CONFIG_SCHEMA,
  type RawModelConfig,
} from './generated/model-config-schema.js';
import { parseTextProto, parseTextProtoBytes, type ParseOptions } from './pbtxt/parser.js';

/**
 * Parses config.pbtxt content. `file` is the path errors name. Throws CONFIG_SYNTAX with
 * `file:line:col:` for any syntax error, unknown field or ill-typed value.
 */
export function parseModelConfig(
  content: string | Uint8Array,
  file: string,
  options: Omit<ParseOptions, 'file'> = {},
): RawModelConfig {
  const opts: ParseOptions = { ...options, file };
  const parsed =
    typeof content === 'string'
      ? parseTextProto(content, MODEL_CONFIG_SCHEMA, MODEL_CONFIG_ROOT, opts)
      : parseTextProtoBytes(content, MODEL_CONFIG_SCHEMA, MODEL_CONFIG_ROOT, opts);
  // The parser only produces fields, kinds and enum names the schema allows, which is what the
  // generated Raw* types describe; this cast is the one place that trust is taken.
  return parsed as RawModelConfig;
}
