// The server's logger: pino records, written as JSON lines (the default: one object per line, so a
// model name or request id carrying a newline or an escape code can never forge a log line) or in
// Triton's line formats (logging/log-line.ts), to stdout or --log-file. Which records are written
// follows a LogControl (--log-info/--log-warning/--log-error/--log-verbose, and the logging
// extension at run time): the filter is a pino hook every child logger shares, so a change
// reaches the per-model loggers made before it.

import { pino, type DestinationStream, type Logger } from 'pino';
import { LogControl } from './logging/log-control.js';
import { renderRecord } from './logging/log-line.js';
import type { LogSettings } from './logging/log-settings.js';

export type { Logger };

const controls = new WeakMap<Logger, LogControl>();

/**
 * A root logger. `config` is --log-verbose's level (the other settings at their defaults), the
 * settings, or a control to follow. `destination` overrides where records go (tests capture them).
 */
export function createLogger(
  config: number | Partial<LogSettings> | LogControl,
  destination?: NodeJS.WritableStream,
): Logger {
  const control =
    config instanceof LogControl
      ? config
      : new LogControl(typeof config === 'number' ? { log_verbose_level: config } : config);
  const out = destination ?? openDestination(control.settings.log_file);
  // The format is read per record, so a POST /v2/logging changing it applies to the next line.
  const sink: DestinationStream = {
    write: (line: string) => out.write(renderRecord(line, control.settings.log_format)),
  };
  const logger = pino(
    {
      name: 'infernode',
      // Every level reaches the hook, which decides by the settings in force now; a record it
      // drops is never serialized. (pino's own threshold is copied into each child logger when
      // the child is made, so changing it at run time would miss the per-model loggers.)
      level: 'trace',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      hooks: {
        logMethod(args, method, level) {
          if (control.enabled(level)) method.apply(this, args);
        },
      },
    },
    sink,
  );
  controls.set(logger, control);
  return logger;
}

/** The control a logger made by createLogger follows; undefined for any other logger. */
export function logControlOf(logger: Logger): LogControl | undefined {
  return controls.get(logger);
}

/**
 * stdout, or --log-file opened for appending. Written synchronously: a record written just before
 * the process exits is in the file, and logging is never on a request's hot path.
 */
function openDestination(file: string): NodeJS.WritableStream | DestinationStream {
  if (file === '') return process.stdout;
  return pino.destination({ dest: file, sync: true, append: true, mkdir: true });
}
