// Poll mode (`--model-control-mode=poll`): every `--repository-poll-secs` the repositories are
// scanned, a model whose directory changed since it was last loaded (or tried) is loaded again, and
// a model whose directory is gone is unloaded and forgotten. Changes are seen by a fingerprint of
// each model directory (names, sizes, mtimes); models are handled one at a time, and a poll never
// overlaps the next. What a load or unload does is the manager's: the poller only decides when.

import type { InferenceServerError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ModelSource } from './configure-model.js';
import { modelFingerprint } from './model-fingerprint.js';

/** What the poller asks of the model manager. */
export interface PollTarget {
  /** Every model directory of every repository; a name in two repositories maps to an error. */
  scan(): Promise<Map<string, ModelSource | InferenceServerError>>;
  /** Names the registry knows. */
  known(): readonly string[];
  /** Records that a model's directory cannot be loaded as it stands (no-op if already recorded). */
  refuse(name: string, e: InferenceServerError): void;
  /** Loads (or reloads) a model from its directory; a failure is recorded, not thrown. */
  load(name: string): Promise<void>;
  /** Unloads a model and forgets it. */
  remove(name: string): Promise<void>;
}

export class RepositoryPoller {
  /** The fingerprint each model directory had when it was last loaded (or tried). */
  readonly #fingerprints = new Map<string, string>();
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly target: PollTarget,
    private readonly intervalSecs: number,
    private readonly logger: Logger,
    private readonly describe: (e: unknown) => string,
  ) {}

  /** Start-up: remembers the directory a model is about to be loaded from. */
  async remember(source: ModelSource): Promise<void> {
    this.#fingerprints.set(source.name, await modelFingerprint(source.dir));
  }

  start(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#polling = this.pollOnce()
        .catch((e: unknown) => {
          this.logger.error({ err: this.describe(e) }, 'repository poll failed');
        })
        .finally(() => {
          this.#polling = undefined;
          this.start();
        });
    }, this.intervalSecs * 1000);
    this.#timer.unref();
  }

  /** No poll starts after this; `settled` waits for one in progress. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async settled(): Promise<void> {
    await this.#polling;
  }

  /** One poll: loads what changed, then removes what is gone. */
  async pollOnce(): Promise<void> {
    const sources = await this.target.scan();
    for (const [name, source] of sources) {
      if (this.#stopped) return;
      if (source instanceof Error) {
        this.target.refuse(name, source);
        continue;
      }
      const fingerprint = await modelFingerprint(source.dir);
      if (this.#fingerprints.get(name) === fingerprint) continue;
      this.#fingerprints.set(name, fingerprint);
      this.logger.info({ model: name }, 'model directory changed: loading');
      await this.target.load(name);
    }
    for (const name of this.target.known()) {
      if (this.#stopped) return;
      if (sources.has(name)) continue;
      this.#fingerprints.delete(name);
      this.logger.info({ model: name }, 'model directory removed: unloading');
      await this.target.remove(name);
    }
  }
}
