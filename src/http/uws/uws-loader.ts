// Loads the uWebSockets.js native binary, lazily and without ever throwing, and describes the slice
// of its API infernode uses. A missing or incompatible binary must never stop the server starting:
// the caller falls back to node:http with the reason this returns.
//
// The binary is required directly instead of through the package's main module: that module, when
// no binary matches the running Node ABI, prints two console warnings and silently substitutes a
// JavaScript re-implementation of the uWS API on top of node:http. infernode has its own node:http
// adapter, so it wants a clean yes/no here and one log line from the caller.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type {
  HttpRequest,
  HttpResponse,
  us_listen_socket,
  WebSocketBehavior,
} from '@trufflesuite/uws-js-unofficial';

const PACKAGE = '@trufflesuite/uws-js-unofficial';

/**
 * The app surface used here. Declared locally because the package's d.ts (written for an older uWS)
 * lacks `close()` (present in this 20.30 build) and the `listen(host, port, options, cb)` overload.
 */
export interface UwsApp {
  any(pattern: string, handler: (res: HttpResponse, req: HttpRequest) => void): UwsApp;
  ws<UserData>(pattern: string, behavior: WebSocketBehavior<UserData>): UwsApp;
  listen(
    host: string,
    port: number,
    options: number,
    callback: (listenSocket: us_listen_socket | false) => void,
  ): UwsApp;
  /** Closes listen sockets and force-closes every connection; absent from older builds. */
  close?: () => void;
}

export interface UwsModule {
  App(): UwsApp;
  us_listen_socket_close(listenSocket: us_listen_socket): void;
  /** Typed for any socket upstream; works on a listen socket and returns its bound port. */
  us_socket_local_port(listenSocket: us_listen_socket): number;
  /**
   * Without this flag uWS binds with SO_REUSEPORT, so a second server on the same fixed port
   * "succeeds" and the kernel splits connections between the two (measured on this build).
   */
  readonly LIBUS_LISTEN_EXCLUSIVE_PORT: number;
}

export type UwsLoadResult =
  | { readonly ok: true; readonly uws: UwsModule; readonly binary: string }
  | { readonly ok: false; readonly reason: string };

let cached: UwsLoadResult | undefined;

/** The binary's file name for this process: uWS ships one per platform, arch and Node ABI. */
export function uwsBinaryName(): string {
  return `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
}

/** Describes the running Node as in the fallback log line: "Node v24.21.0 (ABI 137)". */
export function nodeDescription(): string {
  return `Node ${process.version} (ABI ${process.versions.modules})`;
}

/** Loads the binary once per process; later calls return the first outcome. */
export function loadUws(): UwsLoadResult {
  cached ??= tryLoad();
  return cached;
}

function tryLoad(): UwsLoadResult {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = path.dirname(require.resolve(`${PACKAGE}/package.json`));
  } catch {
    return { ok: false, reason: `uWebSockets.js (${PACKAGE}) is not installed` };
  }
  const binary = path.join(packageDir, 'binaries', uwsBinaryName());
  // Checked first so the common case (a Node release newer than the republish) gets a plain
  // sentence instead of a dlopen error.
  if (!existsSync(binary)) {
    return {
      ok: false,
      reason: `uWebSockets.js native binary not available for ${nodeDescription()}`,
    };
  }
  try {
    // The binary's exports match UwsModule (checked by the uWS conformance run); require() of a
    // .node file is typed `any`, hence the one cast.
    const uws = require(binary) as UwsModule;
    if (typeof uws.App !== 'function') {
      return { ok: false, reason: `${binary} loaded but does not export App()` };
    }
    return { ok: true, uws, binary };
  } catch (error) {
    // e.g. a glibc older than the one the binary was linked against.
    const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      ok: false,
      reason: `uWebSockets.js native binary failed to load for ${nodeDescription()}: ${detail}`,
    };
  }
}
