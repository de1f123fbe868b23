// The server's logger: pino JSON lines on stdout (one object per line, so a model name or request
// id carrying a newline or an escape code can never forge a log line). --log-verbose >= 1 turns on
// debug records.

import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(verbose: number, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      name: 'infernode',
      level: verbose >= 1 ? 'debug' : 'info',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? process.stdout,
  );
}
