// One model's lifecycle, as Triton's model_lifecycle.cc keeps it: the model's state and reason, the
// rows of its versions that are loading, unloading or unavailable, the versions serving now, and
// whether the server is meant to serve it. This file is the only writer of those records, and every
// write is a named transition; the manager decides what to load, the load steps carry it out, and
// the lifecycle records what happened. A transition the operation chains should have made
// impossible (two loads of one version at once, a load while the model unloads) throws: it is a bug
// in the caller, not a client's mistake. Everyone else reads the ModelEntry view.
//
// Model states:   LOADING ──serve──▶ READY ──beginUnload──▶ UNLOADING ──unloaded──▶ UNAVAILABLE
//                    └──failed──▶ UNAVAILABLE ──serve──▶ READY   (failed while READY keeps READY)
// Version rows:   (none | UNAVAILABLE | serving) ──startLoading──▶ LOADING ──serve──▶ serving
//                 LOADING ──loadFailed──▶ UNAVAILABLE(reason); serving ──retiring──▶ UNLOADING
//                 UNLOADING ──retired / unloaded──▶ UNAVAILABLE(unloaded)

import type { ModelConfig } from '../config/model-config.js';
import {
  UNLOADED,
  type ModelEntry,
  type ModelState,
  type ModelVersion,
  type VersionStatus,
} from './model-version.js';

/** One row of the repository index (Triton's RepositoryIndexResponse.ModelIndex). */
export interface IndexRow {
  readonly name: string;
  readonly version?: string;
  readonly state?: ModelState;
  readonly reason?: string;
}

export class ModelLifecycle implements ModelEntry {
  #state: ModelState = 'LOADING';
  #reason = '';
  #config: ModelConfig | undefined;
  #versions: ReadonlyMap<number, ModelVersion> = new Map();
  readonly #statuses = new Map<number, VersionStatus>();
  #wanted = true;

  /** A model about to load for the first time: LOADING, wanted. */
  constructor(readonly name: string) {}

  /** READY while any version serves; LOADING before the first load ends; UNLOADING; UNAVAILABLE. */
  get state(): ModelState {
    return this.#state;
  }

  /** Why the model is UNAVAILABLE, or why its last load failed while older versions serve. */
  get reason(): string {
    return this.#reason;
  }

  /** The completed config of the serving versions (or of the first attempt, when none serves). */
  get config(): ModelConfig | undefined {
    return this.#config;
  }

  /**
   * The serving versions. Every transition replaces the whole map in one assignment, so a request
   * resolves either the old set or the new one, never a mix.
   */
  get versions(): ReadonlyMap<number, ModelVersion> {
    return this.#versions;
  }

  /** Index rows for versions that are not serving. A version both serving and here shows READY. */
  get statuses(): ReadonlyMap<number, VersionStatus> {
    return this.#statuses;
  }

  /** Set by every load, cleared by an unload: strict readiness counts only wanted models. */
  get wanted(): boolean {
    return this.#wanted;
  }

  // ---- transitions ----

  /** A load call: the server is meant to serve the model, so a failure counts for readiness. */
  want(): void {
    this.#wanted = true;
  }

  /** A load's config is known: it stands for the model until a version serves. */
  configured(config: ModelConfig): void {
    this.#config ??= config;
  }

  /** A load of a READY model that would change nothing: it succeeds as it stands. */
  unchanged(): void {
    if (this.#state !== 'READY') this.illegal('unchanged', 'a model that is not READY');
    this.#wanted = true;
    this.succeeded();
  }

  /** A load starts `versions` (new numbers, unavailable ones, or replacements of serving ones). */
  startLoading(versions: readonly number[]): void {
    if (this.#state === 'UNLOADING') this.illegal('startLoading', 'an UNLOADING model');
    for (const v of versions) {
      const row = this.#statuses.get(v)?.state;
      if (row === 'LOADING' || row === 'UNLOADING') {
        this.illegal('startLoading', `version ${v}, which is ${row}`);
      }
    }
    this.#wanted = true;
    for (const v of versions) this.#statuses.set(v, { state: 'LOADING', reason: '' });
  }

  /** The versions a load was starting failed with it: they are UNAVAILABLE for `reason`. */
  loadFailed(versions: readonly number[], reason: string): void {
    for (const v of versions) this.expectRow('loadFailed', v, 'LOADING');
    for (const v of versions) this.#statuses.set(v, { state: 'UNAVAILABLE', reason });
  }

  /**
   * A load failed (at any step). The model is UNAVAILABLE unless older versions still serve, and
   * then only the reason changes; unavailable version rows carry the reason (not an older
   * `unloaded`). Returns whether older versions still serve.
   */
  failed(reason: string): boolean {
    if (this.#state === 'UNLOADING') this.illegal('failed', 'an UNLOADING model');
    this.#reason = reason;
    if (this.#versions.size > 0) return true;
    this.#state = 'UNAVAILABLE';
    for (const [v, s] of this.#statuses) {
      if (s.state === 'UNAVAILABLE') this.#statuses.set(v, { state: 'UNAVAILABLE', reason });
    }
    return false;
  }

  /**
   * The switch: `next` serves from here on, under `config`; the model is READY and earlier
   * failures are superseded. Every version in `next` either served already or was LOADING. The
   * replaced versions in `retiring` that no longer serve are UNLOADING until `retired`.
   */
  serve(
    config: ModelConfig,
    next: ReadonlyMap<number, ModelVersion>,
    retiring: readonly ModelVersion[],
  ): void {
    if (this.#state === 'UNLOADING') this.illegal('serve', 'an UNLOADING model');
    for (const [v, mv] of next) {
      if (this.#versions.get(v) !== mv) this.expectRow('serve', v, 'LOADING');
    }
    this.#versions = next;
    this.#config = config;
    this.succeeded();
    for (const v of next.keys()) this.#statuses.delete(v);
    for (const v of retiring) {
      if (!next.has(v.version)) this.#statuses.set(v.version, { state: 'UNLOADING', reason: '' });
    }
  }

  /** Replaced versions have drained and stopped: those that do not serve again are `unloaded`. */
  retired(versions: readonly number[]): number[] {
    const gone = versions.filter((v) => !this.#versions.has(v));
    for (const v of gone) this.expectRow('retired', v, 'UNLOADING');
    for (const v of gone) this.#statuses.set(v, { state: 'UNAVAILABLE', reason: UNLOADED });
    return gone;
  }

  /**
   * An unload starts: the model is no longer wanted and, from here on, serves no new request.
   * Returns the versions that served, which must drain before `unloaded`. With none serving the
   * model is simply UNAVAILABLE (`unloaded`), except one whose first load has not ended.
   */
  beginUnload(): ModelVersion[] {
    if (this.#state === 'UNLOADING') this.illegal('beginUnload', 'an UNLOADING model');
    this.#wanted = false;
    const old = [...this.#versions.values()];
    if (old.length === 0) {
      if (this.#state !== 'LOADING') {
        this.#state = 'UNAVAILABLE';
        this.#reason = UNLOADED;
      }
      return old;
    }
    this.#versions = new Map(); // from here on, new requests get "no available versions"
    this.#state = 'UNLOADING';
    this.#reason = '';
    for (const v of old) this.#statuses.set(v.version, { state: 'UNLOADING', reason: '' });
    return old;
  }

  /** The versions of an unload have drained and stopped: the model is UNAVAILABLE (`unloaded`). */
  unloaded(versions: readonly number[]): void {
    if (this.#state !== 'UNLOADING') this.illegal('unloaded', `a ${this.#state} model`);
    for (const v of versions) this.#statuses.set(v, { state: 'UNAVAILABLE', reason: UNLOADED });
    this.#state = 'UNAVAILABLE';
    this.#reason = UNLOADED;
  }

  // ---- helpers ----

  /** READY; earlier failures are superseded (their rows and reason go; `unloaded` rows stay). */
  private succeeded(): void {
    this.#state = 'READY';
    this.#reason = '';
    for (const [v, s] of this.#statuses) {
      if (s.state === 'UNAVAILABLE' && s.reason !== UNLOADED) this.#statuses.delete(v);
    }
  }

  private expectRow(transition: string, version: number, state: ModelState): void {
    const row = this.#statuses.get(version)?.state ?? 'no row';
    if (row !== state) this.illegal(transition, `version ${version}, which is ${row}`);
  }

  private illegal(transition: string, what: string): never {
    // A manager bug (operations on one model run one at a time), not user input.
    throw new Error(`model '${this.name}': illegal lifecycle transition ${transition} on ${what}`);
  }
}

/**
 * A model's rows in the repository index: one per version it serves or shows (serving ones READY,
 * carrying the reason of a reload that failed while they kept serving), ascending; or one for the
 * model when it has none.
 */
export function indexRows(entry: ModelEntry): IndexRow[] {
  const { name } = entry;
  const versions = new Map<number, IndexRow>();
  for (const [v, s] of entry.statuses) {
    versions.set(v, { name, version: String(v), state: s.state, reason: s.reason });
  }
  for (const v of entry.versions.keys()) {
    versions.set(v, { name, version: String(v), state: 'READY', reason: entry.reason });
  }
  if (versions.size === 0) return [{ name, state: entry.state, reason: entry.reason }];
  return [...versions.keys()].sort((a, b) => a - b).map((v) => versions.get(v) as IndexRow);
}
