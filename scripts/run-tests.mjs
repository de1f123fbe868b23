// `npm test`'s last step: runs the compiled test files in three `node --test` runs, one after the
// other. The unit tests (dist/test/unit/) that start no server run two files at a time, which
// halves the per-file cost that dominates them (a process and its imports, about 0.5 s a file for
// ~190 files, on the 2-core CI machine). Conformance and integration tests, and the unit files that
// start a server or listen on a port, run two files at a time as well: such a file mostly waits on
// sockets, timers and worker start-up, so a second one beside it cuts the run's wall time by a
// third or more (CI's budget: .ci/run, both Node versions, under 20 minutes). Every file picks its own free ports,
// temporary folders and /dev/shm names, so two never collide. The files in RUN_ALONE (below, each
// with its reason) time drains, stops, restarts and queues against the machine's measured speed,
// or run load under request timeouts a neighbour could push them past: they run last, one at a
// time, as every serving file used to.
//
// All runs always go (a unit failure does not hide the integration results), each prints its own
// summary, and a combined summary follows in the reporter's own format (`ℹ tests N` or
// `# tests N`), so the last summary in a log counts every test. The exit status is non-zero if
// any run failed. Files may be named on the command line (default: every dist/test/**/*.test.js).
// Plain JavaScript, like the other scripts/*.mjs: it needs nothing compiled but the tests.

import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CONCURRENCY = 2;
const COMMON = ['--test-timeout=120000'];
/** The counts `node --test` prints last, in its order. */
const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo', 'duration_ms'];
const SUMMARY_LINE = new RegExp(`^(ℹ|#) (${COUNTS.join('|')}) ([\\d.]+)$`);
const ANSI = /\u001b\[[0-9;]*m/g;

/** Every `*.test.js` under `dir`, sorted as `find | sort` lists them in the C locale. */
function testFiles(dir, out = []) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) testFiles(full, out);
    else if (e.name.endsWith('.test.js')) out.push(path.relative(ROOT, full));
  }
  return out.sort();
}

/**
 * The files that run one at a time, after the rest: paths under test/ without `.test.js` (a file
 * matches where its path, less its extension and `.test`, ends with `/test/` and the entry).
 */
const RUN_ALONE = [
  // Size their requests from slow_fp32's speed measured at the start, then time a drain or a
  // stop against it: a neighbour that slows the runs afterwards breaks the sizing.
  'integration/shutdown-drain',
  'integration/shutdown-stop',
  // Times how long a stop takes against --exit-timeout-secs, with a session create sized to
  // outlast it.
  'integration/exit-deadline',
  // Measure time between events: restart spacing (doubling waits), queue timeouts in the fair
  // order, runs' intervals that must (or must not) overlap, a slow shadow that must not delay
  // its clients.
  'integration/javascript-restart-backoff',
  'integration/fair-tenants',
  'integration/rate-limiter',
  'integration/shadow-versions',
  // Not one request may fail while replicas restart behind a balancer, within request timeouts.
  'integration/rolling-restart',
  // The bench load engines run load against a server of their own, with request timeouts a
  // second file beside them could push them past.
  'unit/bench/grpc-load-engine',
  'unit/bench/sharded-engine',
  'unit/bench/h2-client',
  'unit/bench/load-engines',
  'unit/bench/ws-load-engine',
];

/** What a test file that starts a server or listens on a port has in it (compiled or not). */
const SERVES = /helpers\/(test-server|spawn-server)\.js|\.listen\(|createServer\(|new Server\(/;

/** `file` as a path with `/` separators and without its extension and `.test`. */
const stem = (file) =>
  path
    .resolve(ROOT, file)
    .split(path.sep)
    .join('/')
    .replace(/(\.test)?\.m?js$/, '');

/** A file of RUN_ALONE. */
const runsAlone = (file) => RUN_ALONE.some((entry) => stem(file).endsWith(`/test/${entry}`));

/** A unit test file that starts no server. */
const isPlainUnit = (file) =>
  stem(file).includes('/test/unit/') &&
  !SERVES.test(readFileSync(path.resolve(ROOT, file), 'utf8'));

/**
 * Runs `node --test` on `files`, its output passed through as it comes; resolves to its exit
 * status and the summary counts it printed. On a terminal the spec reporter (in colour) is asked
 * for by name, since the child writes to a pipe and Node 20 would otherwise pick TAP.
 */
function runTests(label, concurrency, files) {
  const tty = process.stdout.isTTY === true;
  const args = [
    '--test',
    `--test-concurrency=${concurrency}`,
    ...COMMON,
    ...(tty ? ['--test-reporter=spec', '--test-reporter-destination=stdout'] : []),
    ...files,
  ];
  const env = {
    ...process.env,
    ...(tty && { FORCE_COLOR: process.env.FORCE_COLOR ?? '1' }),
    // ONNX Runtime's telemetry off in every test file, also those that import no test helper
    // (test/helpers/ort-telemetry-off.ts says why).
    ORT_DISABLE_TELEMETRY: process.env.ORT_DISABLE_TELEMETRY ?? '1',
  };
  console.log(`# ${label}: ${files.length} file(s), ${concurrency} at a time`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const counts = {};
    let prefix = '#';
    let partial = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const m = SUMMARY_LINE.exec(line.replace(ANSI, '').trimEnd());
        if (m !== null) {
          prefix = m[1];
          counts[m[2]] = Number(m[3]);
        }
      }
    });
    child.on('close', (code, signal) => {
      const status = code ?? 1;
      if (signal !== null) console.log(`# ${label}: node --test ended by ${signal}`);
      resolve({ label, status, counts, prefix });
    });
  });
}

const named = process.argv.slice(2).map((f) => path.resolve(f));
const all = named.length > 0 ? named : testFiles(path.join(ROOT, 'dist', 'test'));
const runs = [
  { label: 'unit tests', concurrency: CONCURRENCY, files: all.filter((f) => isPlainUnit(f)) },
  {
    label: 'conformance, integration and serving unit tests',
    concurrency: CONCURRENCY,
    files: all.filter((f) => !isPlainUnit(f) && !runsAlone(f)),
  },
  {
    label: 'tests that run alone',
    concurrency: 1,
    files: all.filter((f) => !isPlainUnit(f) && runsAlone(f)),
  },
].filter((r) => r.files.length > 0);

const results = [];
for (const r of runs) results.push(await runTests(r.label, r.concurrency, r.files));

if (results.length > 1) {
  const prefix = results.at(-1).prefix;
  console.log(
    `${prefix} all runs: ${results.map((r) => `${r.label} exited ${r.status}`).join(', ')}`,
  );
  for (const key of COUNTS) {
    const sum = results.reduce((s, r) => s + (r.counts[key] ?? 0), 0);
    console.log(`${prefix} ${key} ${key === 'duration_ms' ? sum.toFixed(3) : sum}`);
  }
}
// A run that printed no summary (killed, or crashed before it), or ran no test at all, fails too.
const failed = results.some((r) => r.status !== 0 || !(r.counts.tests > 0));
process.exit(failed ? 1 : 0);
