// Triton's two line formats, rendered from one pino JSON record (the logger always produces JSON;
// the sink turns it into a line when a line format is chosen, so the format can change at run
// time without rebuilding any logger):
//   default  I1127 22:36:35.801000 14160 infernode] model version ready model=mlp version=1
//   ISO8601  2026-11-27T22:36:35Z I 14160 infernode] model version ready model=mlp version=1
// The severity letter is Triton's (E, W, I, V for verbose). Fields follow the message as
// key=value; a string with a space, quote, `=` or control character is written as a JSON string,
// and the message's control characters are escaped, so a value carrying a newline or an escape
// code can no more forge a line here than in the JSON format.

import type { LogFormat } from './log-settings.js';

const OWN_KEYS = new Set(['level', 'time', 'pid', 'name', 'msg', 'hostname']);
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const NEEDS_QUOTES = /[\s"=\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Triton's letter for a pino level: 10 trace, 20 debug, 30 info, 40 warn, 50 error, 60 fatal. */
function severity(level: number): string {
  if (level >= 50) return 'E';
  if (level >= 40) return 'W';
  if (level >= 30) return 'I';
  return 'V';
}

/** `json` lines pass through; a line format renders the record, newline included. */
export function renderRecord(json: string, format: LogFormat): string {
  if (format === 'json') return json;
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json; // not one of pino's records: written as it came
  }
  const level = typeof record['level'] === 'number' ? record['level'] : 30;
  const time = new Date(typeof record['time'] === 'string' ? record['time'] : Date.now());
  const pid = record['pid'] ?? process.pid;
  const source = typeof record['name'] === 'string' ? record['name'] : 'infernode';
  const head =
    format === 'ISO8601'
      ? `${time.toISOString().slice(0, 19)}Z ${severity(level)} ${String(pid)} ${source}]`
      : `${severity(level)}${pad(time.getUTCMonth() + 1)}${pad(time.getUTCDate())} ` +
        `${pad(time.getUTCHours())}:${pad(time.getUTCMinutes())}:${pad(time.getUTCSeconds())}.` +
        `${String(time.getUTCMilliseconds() * 1000).padStart(6, '0')} ${String(pid)} ${source}]`;
  const msg = typeof record['msg'] === 'string' ? record['msg'] : '';
  let line = `${head} ${CONTROL.test(msg) ? JSON.stringify(msg).slice(1, -1) : msg}`;
  for (const [key, value] of Object.entries(record)) {
    if (OWN_KEYS.has(key) || value === undefined) continue;
    line += ` ${key}=${fieldText(value)}`;
  }
  return `${line}\n`;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return NEEDS_QUOTES.test(value) ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
