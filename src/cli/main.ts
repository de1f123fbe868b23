#!/usr/bin/env node
// The `infernode` command: parse flags, start the server, and turn SIGTERM/SIGINT into a bounded
// drain (src/shutdown.ts). A second signal cuts the drain short; the process then exits once no run
// is inside ONNX Runtime, with status 0 for a complete drain and 1 otherwise; --exit-timeout-secs
// (plus a grace once serving) bounds every phase, start-up loads included, past which the process
// ends by the signal (exit-deadline.ts). Under systemd (Type=notify) it reports readiness, the
// drain and watchdog pings (systemd-notify.ts).

import { helpText, parseArgs } from './server-options.js';
import { armExitDeadline } from './exit-deadline.js';
import { defaultOrtTelemetryOff } from './ort-telemetry.js';
import { openNotifier, watchedServer } from './systemd-notify.js';
import { createLogger } from '../logger.js';
import { logSettingsOf } from '../logging/log-settings.js';
import { VERSION } from '../version.js';

/**
 * After --exit-timeout-secs a cut-short stop answers the queue at once and waits for the runs inside
 * ONNX Runtime (one batch per instance) and the answers being written; past this grace on top of
 * the timeout, the process ends by its signal whatever is still running.
 */
const CUT_SHORT_GRACE_MS = 5000;

async function main(): Promise<number> {
  // Before anything creates an ONNX Runtime session (the server's instances, `validate`).
  defaultOrtTelemetryOff();
  // `infernode validate ...` is its own command (src/validate/), loaded only when asked for.
  if (process.argv[2] === 'validate') {
    const { runValidate } = await import('../validate/validate-command.js');
    return runValidate(process.argv.slice(3), {
      write: (text) => process.stdout.write(text),
      error: (text) => process.stderr.write(text),
    });
  }
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
  // The server's modules (about half of the command's module loading, ~250-460 ms here) are
  // loaded only once a server is to start: --help, --version and a flag error answer without them.
  // Loaded before the signal handlers below, as the static import was.
  const { startServer } = await import('../server.js');
  const { options } = parsed;
  let logger;
  try {
    logger = createLogger(logSettingsOf(options));
  } catch (e) {
    // --log-file that cannot be opened: a flag error, reported as one.
    process.stderr.write(`infernode: --log-file: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
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
  // A signal while models load must not kill the process on the spot: workers are creating their
  // sessions, and the default action would end it by signal with nothing logged. It is noted, the
  // loads finish (a worker is never stopped inside session creation), and the server then stops
  // at once: it has not served, so there is nothing to drain. --exit-timeout-secs still bounds
  // it: a load that outlasts it ends the process by the signal (exit-deadline.ts).
  let startupSignal: NodeJS.Signals | undefined;
  const exitTimeoutMs = options.exitTimeoutSecs * 1000;
  const duringStartup = (signal: NodeJS.Signals): void => {
    if (startupSignal === undefined) {
      logger.info(
        { signal, exitTimeoutSecs: options.exitTimeoutSecs },
        'signal during start-up: stopping once the models have loaded',
      );
      armExitDeadline(signal, exitTimeoutMs, logger, () => 'during start-up, models loading');
    } else {
      logger.warn({ signal }, 'already stopping: waiting for the models being loaded');
    }
    startupSignal ??= signal;
  };
  process.on('SIGTERM', duringStartup);
  process.on('SIGINT', duringStartup);
  let server;
  try {
    server = await startServer(options, logger);
  } catch (e) {
    logger.fatal({ err: e instanceof Error ? e.message : String(e) }, 'start-up failed');
    notifier?.status(`start-up failed: ${e instanceof Error ? e.message : String(e)}`);
    await notifier?.close();
    return 1;
  } finally {
    process.off('SIGTERM', duringStartup);
    process.off('SIGINT', duringStartup);
  }
  const running = server;
  if (startupSignal !== undefined) {
    notifier?.stopping('stopping: a signal arrived during start-up');
    await running.stopNow(`signal during start-up (${startupSignal})`);
    logger.info({ status: 0 }, 'exiting with status 0');
    return 0;
  }
  notifier?.watch(watchedServer(running));

  return new Promise<number>((resolve) => {
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      signals += 1;
      if (signals === 2) {
        // Not process.exit: ending the process while a worker is inside session.run aborts it
        // (SIGABRT). The shutdown answers what is queued now and resolves once the runs return.
        logger.warn({ signal }, 'second signal: cutting the drain short');
        void running.stopNow(`second signal (${signal})`);
        return;
      }
      if (signals > 2) {
        logger.warn({ signal }, 'already stopping: waiting for the runs inside ONNX Runtime');
        return;
      }
      logger.info(
        {
          signal,
          exitTimeoutSecs: options.exitTimeoutSecs,
          drainDelaySecs: options.drainDelaySecs,
        },
        'shutting down',
      );
      // The drain is cut short at the timeout; what runs inside ONNX Runtime then gets a grace to
      // return and be answered (and a load or unload in progress to finish) before the hard end.
      armExitDeadline(
        signal,
        exitTimeoutMs + CUT_SHORT_GRACE_MS,
        logger,
        () => `with the shutdown still waiting ${CUT_SHORT_GRACE_MS / 1000} s after it`,
      );
      notifier?.stopping(
        `draining: finishing in-flight requests (at most ${options.exitTimeoutSecs} s)`,
      );
      running.shutdown(exitTimeoutMs).then(
        (drained) => {
          const status = drained ? 0 : 1;
          logger.info({ status }, `exiting with status ${status}`);
          resolve(status);
        },
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
    // Exit explicitly rather than waiting for the event loop to empty (an embedding's stray timer
    // or socket would hold it). The shutdown has stopped every worker by now, so no run is inside
    // ONNX Runtime: exiting cannot abort the process.
    process.exit(code);
  },
  (e: unknown) => {
    process.stderr.write(`infernode: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  },
);
