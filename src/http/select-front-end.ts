// Chooses the HTTP front end at start-up: uWebSockets.js when its native binary loads and can honour
// the options, node:http otherwise, with one sentence saying why for the start-up log.
//
// The node:http adapter is imported only when chosen: with it come `ws` and the adapter's own
// modules, about 80-160 ms of module loading that a uWS server (the default) never uses, paid at
// every start and in every front-end thread.

import { fail } from '../errors.js';
import type { FrontEnd, FrontEndOptions } from './front-end.js';
import { UWS_MAX_CONTENT_LENGTH, UwsFrontEnd, uwsLimitsReason } from './uws/uws-front-end.js';
import { loadUws, type UwsLoadResult } from './uws/uws-loader.js';

/** `--http-front-end`: `auto` prefers uWS and falls back; the others insist. */
export type FrontEndChoice = 'auto' | 'uws' | 'node';

export const FRONT_END_CHOICES: readonly FrontEndChoice[] = Object.freeze(['auto', 'uws', 'node']);

export interface SelectFrontEndOptions extends FrontEndOptions {
  readonly frontEnd?: FrontEndChoice;
}

export interface FrontEndSelection {
  readonly frontEnd: FrontEnd;
  /** Set when `auto` fell back to node:http: the one line to log at start-up. */
  readonly reason?: string;
}

const FALLBACK_SUFFIX = 'serving HTTP with node:http';

/**
 * Never rejects for `auto` or `node`. For `uws` rejects with UNSUPPORTED and the reason uWS cannot
 * serve. `loader` is for tests; by default the binary is loaded (once per process) on first use.
 */
export async function selectFrontEnd(
  options: SelectFrontEndOptions,
  loader: () => UwsLoadResult = loadUws,
): Promise<FrontEndSelection> {
  const choice = options.frontEnd ?? 'auto';
  switch (choice) {
    case 'node':
      return { frontEnd: await nodeFrontEnd(options) };
    case 'uws':
    case 'auto': {
      const uws = uwsUnavailableReason(options) ?? loader();
      if (typeof uws !== 'string' && uws.ok) return { frontEnd: new UwsFrontEnd(uws.uws, options) };
      const why = typeof uws === 'string' ? uws : uws.reason;
      if (choice === 'uws') throw fail('UNSUPPORTED', `--http-front-end=uws: ${why}`);
      return { frontEnd: await nodeFrontEnd(options), reason: `${why}: ${FALLBACK_SUFFIX}` };
    }
  }
}

async function nodeFrontEnd(options: FrontEndOptions): Promise<FrontEnd> {
  const { NodeHttpFrontEnd } = await import('./node/node-http-front-end.js');
  return new NodeHttpFrontEnd(options);
}

/** Parses a `--http-front-end` value; throws BAD_PARAMETER naming the accepted values. */
export function parseFrontEndChoice(value: string): FrontEndChoice {
  const found = FRONT_END_CHOICES.find((choice) => choice === value);
  if (found === undefined) {
    throw fail(
      'BAD_PARAMETER',
      `--http-front-end must be one of ${FRONT_END_CHOICES.join(', ')}, got "${value}"`,
    );
  }
  return found;
}

// Checked before loading the binary: options uWS cannot honour whatever the Node version.
function uwsUnavailableReason(options: SelectFrontEndOptions): string | undefined {
  const reason = uwsLimitsReason(options.limits);
  if (reason !== undefined) return reason;

  if (options.maxBodyBytes > UWS_MAX_CONTENT_LENGTH) {
    return (
      `--http-max-input-size ${options.maxBodyBytes} is above the ${UWS_MAX_CONTENT_LENGTH} bytes ` +
      'uWebSockets.js 20.30 accepts in a Content-Length'
    );
  }
  return undefined;
}

/**
 * Why the front end `kind` cannot listen with SO_REUSEPORT on this Node, or undefined when it can.
 * uWS always can (its listen flag); node:http has the `reusePort` listen option from Node 22.12
 * (and 23.1) on, and older versions ignore the option, so a second listener would fail.
 */
export function reusePortUnsupported(
  kind: string,
  nodeVersion: string = process.versions.node,
): string | undefined {
  if (kind === 'uws') return undefined;
  const [major = 0, minor = 0] = nodeVersion.split('.').map(Number);
  if (major > 22 || (major === 22 && minor >= 12)) return undefined;
  return `node:http cannot share its port (SO_REUSEPORT) before Node 22.12; this is Node ${nodeVersion}`;
}
