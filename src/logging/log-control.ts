// The log settings in force in one thread, and who hears of a change. The main thread's control is
// the one the logging extension (GET/POST /v2/logging, gRPC LogSettings) reads and updates; each
// front-end thread holds a copy that main replaces with a `logSettings` message on every change,
// so a thread drops the records the settings turn off before posting them to main.

import {
  applyLogSettings,
  DEFAULT_LOG_SETTINGS,
  type LogSettings,
  type LogSettingsUpdate,
} from './log-settings.js';

export type LogSettingsListener = (settings: LogSettings) => void;

export class LogControl {
  #settings: LogSettings;
  readonly #listeners = new Set<LogSettingsListener>();

  constructor(initial: Partial<LogSettings> = {}) {
    this.#settings = Object.freeze({ ...DEFAULT_LOG_SETTINGS, ...initial });
  }

  get settings(): LogSettings {
    return this.#settings;
  }

  /**
   * Whether a record at pino level `level` is written under the settings now: error and fatal
   * follow log_error, warn log_warning, info log_info; debug needs verbose level 1, trace 2.
   */
  enabled(level: number): boolean {
    const s = this.#settings;
    if (level >= 50) return s.log_error;
    if (level >= 40) return s.log_warning;
    if (level >= 30) return s.log_info;
    return s.log_verbose_level >= (level >= 20 ? 1 : 2);
  }

  /** Applies a checked update and tells every listener; returns the settings now in force. */
  update(update: LogSettingsUpdate): LogSettings {
    return this.replace(applyLogSettings(this.#settings, update));
  }

  /** Takes `settings` whole (a front-end thread's copy of main's); tells every listener. */
  replace(settings: LogSettings): LogSettings {
    this.#settings = Object.freeze({ ...settings });
    for (const listener of this.#listeners) listener(this.#settings);
    return this.#settings;
  }

  /** Calls `listener` with the settings after each change; returns the unsubscribe. */
  onChange(listener: LogSettingsListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
