// Reloads the quota file into the gate on SIGHUP and when the file changes (fs.watch, debounced: an
// editor's save is several events). A file that no longer parses is logged and the quotas in force
// stay; requests are never held or refused by a reload (the gate swaps one frozen config for another).

import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../logger.js';
import { readQuotaFile } from './quota-file.js';
import type { TenantGate } from './tenant-gate.js';

export const RELOAD_DEBOUNCE_MS = 100;

export class QuotaReload {
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #onSignal = (): void => {
    this.reload('SIGHUP');
  };
  /** Reloads done (each outcome logged): tests wait on this. */
  #reloads = 0;

  constructor(
    private readonly path: string,
    private readonly gate: TenantGate,
    private readonly logger: Logger,
  ) {
    process.on('SIGHUP', this.#onSignal);
    // The directory is watched, not the file: an editor or a ConfigMap replaces the file by a
    // rename, after which a watch on the old inode hears nothing.
    try {
      this.#watcher = watch(dirname(path), (_event, name) => {
        if (name !== null && name !== basename(path)) return;
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => this.reload('change'), RELOAD_DEBOUNCE_MS);
        this.#timer.unref();
      });
      this.#watcher.unref();
    } catch (e) {
      logger.warn(
        { err: (e as Error).message },
        `--quota-file: cannot watch ${path}; SIGHUP reloads it`,
      );
    }
  }

  get reloads(): number {
    return this.#reloads;
  }

  /** Reads the file again: the new quotas apply to the next request; a bad file changes nothing. */
  reload(cause: 'SIGHUP' | 'change'): boolean {
    this.#reloads++;
    try {
      this.gate.replace(readQuotaFile(this.path));
      this.logger.info({ cause, quotaFile: this.path }, 'tenant quotas reloaded');
      return true;
    } catch (e) {
      this.logger.error(
        { cause, quotaFile: this.path, err: (e as Error).message },
        'tenant quotas not reloaded: the file is invalid; the quotas in force are kept',
      );
      return false;
    }
  }

  close(): void {
    process.off('SIGHUP', this.#onSignal);
    clearTimeout(this.#timer);
    this.#watcher?.close();
  }
}
