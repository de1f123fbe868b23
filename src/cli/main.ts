#!/usr/bin/env node
// The `infernode` command: parse flags, start the server, and turn SIGTERM/SIGINT into a bounded
// drain. A second signal exits at once. Under systemd (Type=notify) it reports readiness, the drain
// and watchdog pings (systemd-notify.ts).

import { helpText, parseArgs } from './server-options.js';
import { openNotifier, watchedServer } from './systemd-notify.js';
import { createLogger } from '../logger.js';
import { startServer } from '../server.js';
import { VERSION } from '../version.js';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`infernode: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(helpText());
    return 0;
  }
  if (parsed.version) {
    process.stdout.write(`infernode ${VERSION}\n`);
    return 0;
  }
  const { options } = parsed;
  const logger = createLogger(options.logVerbose);
  for (const w of parsed.warnings) logger.warn(w);

  // A request path must never take the process down: anything that escapes is logged, and the
  // request it belonged to has already been answered by the route's catch-all.
  process.on('unhandledRejection', (reason) => {
    logger.error(
      { err: reason instanceof Error ? reason.message : String(reason) },
      'unhandled rejection',
    );
  });

  const notifier = openNotifier(process.env, process.pid, logger);
  notifier?.status('loading models');
  let server;
  try {
    server = await startServer(options, logger);
  } catch (e) {
    logger.fatal({ err: e instanceof Error ? e.message : String(e) }, 'start-up failed');
    notifier?.status(`start-up failed: ${e instanceof Error ? e.message : String(e)}`);
    await notifier?.close();
    return 1;
  }
  const running = server;
  notifier?.watch(watchedServer(running));

  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      signals += 1;
      if (signals > 1) {
        logger.warn({ signal }, 'second signal: exiting now');
        resolve(1);
        return;
      }
      logger.info({ signal, exitTimeoutSecs: options.exitTimeoutSecs }, 'shutting down');
      notifier?.stopping(
        `draining: finishing in-flight requests (at most ${options.exitTimeoutSecs} s)`,
      );
      running.shutdown(options.exitTimeoutSecs * 1000).then(
        (drained) => resolve(drained ? 0 : 1),
        (e: unknown) => {
          logger.error({ err: e instanceof Error ? e.message : String(e) }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

main().then(
  (code) => {
    // Exit explicitly: worker threads would otherwise keep the process alive, and a timed-out
    // drain must not wait for runs still inside ORT.
    process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`infernode: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
