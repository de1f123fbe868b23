// Which requests are traced, and the settings that decide it (Triton's trace extension in
// OpenTelemetry mode). The server has one set of settings; a model may override any of them, and a
// setting it clears (null) follows the server's again. Each scope (the server, or a model with
// overrides) counts its own requests: every `trace_rate`-th one is traced while `trace_count`
// lasts. A step of a traced ensemble and a BLS call of a traced request are always traced, as
// children of the span they were made under; a client's W3C `traceparent` makes the request's span
// a child of the client's, and is ignored when malformed.
//
// Hot path: `begin` is called for every request. With tracing off everywhere it returns at the
// first check: no clock read, no allocation, no map lookup.

import {
  isSpanContextValid,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
} from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';
import type { OtelExport } from './otel-export.js';
import { RequestSpan, toHrTime } from './request-span.js';
import {
  applyUpdate,
  settingsJson,
  type TraceSettings,
  type TraceSettingsJson,
  type TraceUpdate,
} from './trace-settings.js';

/** One scope's settings and its running counts. */
interface Scope {
  settings: TraceSettings;
  /** Requests seen since the rate last changed. */
  seen: number;
}

/** A model's overrides: only the fields it set; the rest follow the server's. */
type Overrides = { -readonly [K in keyof TraceSettings]?: TraceSettings[K] };

export class RequestTracer {
  readonly #initial: TraceSettings;
  readonly #global: Scope;
  readonly #overrides = new Map<string, Overrides>();
  readonly #models = new Map<string, Scope>();
  /** False while no scope traces: `begin` returns at once. */
  #on = false;

  constructor(
    settings: TraceSettings,
    private readonly exporter: OtelExport,
  ) {
    this.#initial = settings;
    this.#global = { settings, seen: 0 };
    this.#refresh();
  }

  /** True while any scope traces (some request may get a span). */
  get tracing(): boolean {
    return this.#on;
  }

  /** The settings of the server (`model` undefined) or of a model, as Triton answers them. */
  settings(model?: string): TraceSettingsJson {
    return settingsJson(model === undefined ? this.#global.settings : this.#scope(model).settings);
  }

  /** Applies a checked update and answers the settings that result. */
  update(model: string | undefined, update: TraceUpdate): TraceSettingsJson {
    if (model === undefined) {
      this.#global.settings = applyUpdate(this.#global.settings, update, this.#initial);
      if (update.rate !== undefined) this.#global.seen = 0;
      // Models follow the server's values for every setting they do not override.
      for (const [name, scope] of this.#models) {
        scope.settings = { ...this.#global.settings, ...this.#overrides.get(name) };
      }
    } else {
      const overrides: Overrides = { ...this.#overrides.get(model) };
      for (const key of ['level', 'rate', 'count', 'logFrequency'] as const) {
        const v = update[key];
        if (v === null) delete overrides[key];
        else if (v !== undefined) (overrides as Record<string, unknown>)[key] = v;
      }
      if (Object.keys(overrides).length === 0) {
        this.#overrides.delete(model);
        this.#models.delete(model);
      } else {
        this.#overrides.set(model, overrides);
        const old = this.#models.get(model);
        this.#models.set(model, {
          settings: Object.freeze({ ...this.#global.settings, ...overrides }),
          seen: old !== undefined && update.rate === undefined ? old.seen : 0,
        });
      }
    }
    this.#refresh();
    return this.settings(model);
  }

  /**
   * Starts the span of a request to `model` when it is to be traced: always under `parent` (an
   * ensemble step, a BLS call), else by the model's rate and count. Undefined: not traced.
   */
  begin(
    model: string,
    version: number,
    arrivalNs: number,
    traceparent: string | undefined,
    parent: RequestSpan | undefined,
  ): RequestSpan | undefined {
    if (parent === undefined) {
      if (!this.#on) return undefined;
      if (!this.#sample(model)) return undefined;
    }
    const tracer = this.exporter.tracer();
    const ctx = parent?.context ?? remoteParent(traceparent);
    const span = tracer.startSpan(
      model,
      {
        kind: parent === undefined ? SpanKind.SERVER : SpanKind.INTERNAL,
        startTime: toHrTime(arrivalNs),
        attributes: { 'triton.model_name': model, 'triton.model_version': String(version) },
      },
      ctx,
    );
    return new RequestSpan(tracer, span, ctx);
  }

  #sample(model: string): boolean {
    const scope = this.#models.get(model) ?? this.#global;
    const s = scope.settings;
    if (s.level === 'OFF' || s.count === 0) return false;
    scope.seen++;
    if (scope.seen % s.rate !== 0) return false;
    if (s.count > 0) this.#consume(model, scope);
    return true;
  }

  /** One trace taken: from the model's own count, or the server's when the model follows it. */
  #consume(model: string, scope: Scope): void {
    const own = this.#overrides.get(model)?.count !== undefined;
    if (own || scope === this.#global) {
      scope.settings = { ...scope.settings, count: scope.settings.count - 1 };
      if (own) (this.#overrides.get(model) as Overrides).count = scope.settings.count;
      if (scope.settings.count === 0) this.#refresh();
      return;
    }
    this.update(undefined, { count: this.#global.settings.count - 1 });
  }

  #refresh(): void {
    const traces = (s: TraceSettings): boolean => s.level !== 'OFF' && s.count !== 0;
    this.#on =
      traces(this.#global.settings) || [...this.#models.values()].some((m) => traces(m.settings));
  }

  #scope(model: string): Scope {
    return this.#models.get(model) ?? this.#global;
  }
}

/** The client's span from a W3C `traceparent`; a missing or malformed one starts a new trace. */
function remoteParent(traceparent: string | undefined): Context {
  if (traceparent === undefined) return ROOT_CONTEXT;
  const parsed = parseTraceParent(traceparent.trim());
  if (parsed === null) return ROOT_CONTEXT;
  const client = {
    ...parsed,
    isRemote: true,
    // The trace settings chose this request: it is recorded whatever the client sampled.
    traceFlags: parsed.traceFlags | TraceFlags.SAMPLED,
  };
  // All-zero ids are invalid (W3C): such a header is ignored like a malformed one.
  return isSpanContextValid(client) ? trace.setSpanContext(ROOT_CONTEXT, client) : ROOT_CONTEXT;
}
