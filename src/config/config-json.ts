// The JSON `/v2/models/{m}/config` returns: protobuf's JSON mapping of ModelConfig as Triton prints it
// (MessageToJsonString with preserve_proto_field_names and always_print_primitive_fields), driven by
// the generated schema so field order, defaults and enum names match model_config.proto.
//
// 64-bit integers: protobuf's JSON mapping writes int64/uint64 as strings, but Triton's ModelConfigToJson
// (config_version 1, which its HTTP /config uses) converts every such field infernode keeps (dims,
// reshape.shape, specific.versions, the dynamic batcher's delays, levels and timeouts, warmup dims)
// back to JSON numbers, and clients such as perf_analyzer read them as numbers. So numbers are the
// default; `{ int64: 'string' }` gives the plain protobuf mapping. Map keys are strings either way.

import { MODEL_CONFIG_ROOT, MODEL_CONFIG_SCHEMA } from './generated/model-config-schema.js';
import type { ModelConfig } from './model-config.js';
import {
  compileSchema,
  is64Bit,
  type CompiledSchema,
  type FieldSchema,
  type FieldType,
} from './pbtxt/schema.js';

export interface ConfigJsonOptions {
  /** `number` (default): Triton's /config. `string`: protobuf's canonical JSON mapping. */
  readonly int64?: 'number' | 'string';
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export function toConfigJson(
  config: ModelConfig,
  options: ConfigJsonOptions = {},
): { [key: string]: Json } {
  const printer = new Printer(compileSchema(MODEL_CONFIG_SCHEMA), options.int64 ?? 'number');
  // ModelConfig is the JSON form of the schema's ModelConfig message, so the printer can walk it by
  // field name; the cast only widens its declared type to that of any message.
  return printer.message(config as unknown as Readonly<Record<string, unknown>>, MODEL_CONFIG_ROOT);
}

class Printer {
  constructor(
    private readonly schema: CompiledSchema,
    private readonly int64: 'number' | 'string',
  ) {}

  message(value: Readonly<Record<string, unknown>>, type: string): { [key: string]: Json } {
    const out: { [key: string]: Json } = {};
    for (const f of this.schema.source.messages[type] ?? []) {
      const v = Object.prototype.hasOwnProperty.call(value, f.name) ? value[f.name] : undefined;
      const printed = this.field(f, v);
      if (printed !== undefined) {
        Object.defineProperty(out, f.name, {
          value: printed,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  }

  /** A field's JSON, or undefined when protobuf would omit it (an unset message or oneof member). */
  private field(f: FieldSchema, v: unknown): Json | undefined {
    switch (f.label) {
      case 'map': {
        const out: { [key: string]: Json } = {};
        for (const [k, entry] of Object.entries((v ?? {}) as Record<string, unknown>)) {
          Object.defineProperty(out, k, {
            value: this.value(f.type, entry),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return out;
      }
      case 'repeated':
        return ((v ?? []) as readonly unknown[]).map((e) => this.value(f.type, e));
      case 'optional':
        if (v === undefined && (f.type.kind === 'message' || f.oneof !== undefined))
          return undefined;
        return this.value(f.type, v);
    }
  }

  private value(type: FieldType, v: unknown): Json {
    switch (type.kind) {
      case 'message':
        return this.message((v ?? {}) as Readonly<Record<string, unknown>>, type.name);
      case 'enum': {
        const names = this.schema.enums.get(type.name);
        if (typeof v === 'number') return names?.byNumber.get(v) ?? v;
        return typeof v === 'string' ? v : (names?.byNumber.get(0) ?? 0);
      }
      case 'scalar':
        switch (type.name) {
          case 'bool':
            return v === true;
          case 'string':
          case 'bytes':
            return typeof v === 'string' ? v : '';
          case 'float':
          case 'double': {
            const n = typeof v === 'number' ? v : 0;
            // The JSON mapping's spellings for values JSON numbers cannot hold.
            if (Number.isNaN(n)) return 'NaN';
            if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
            return n;
          }
          default: {
            const n = typeof v === 'number' ? v : 0;
            return is64Bit(type.name) && this.int64 === 'string' ? String(n) : n;
          }
        }
    }
  }
}
