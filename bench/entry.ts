// What the harness's entry points share: the command line as the user typed it (recorded in
// every result), exit codes (2 for a bad command line, 1 for a failed run), and clean-up of the
// servers and generators a run started, also on Ctrl-C.

import path from 'node:path';
import { UsageError } from './options/usage-error.js';
import { benchEntry, REPO_ROOT } from './paths.js';

const cleanups = new Set<() => Promise<void>>();

/** Registers clean-up for an interrupted run; call the returned function once it is done normally. */
export function onInterrupt(f: () => Promise<void>): () => void {
  cleanups.add(f);
  return () => cleanups.delete(f);
}

const quote = (a: string): string =>
  /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;

/** The npm script that aliases a subcommand: `bench` for run, `bench:<name>` for the others. */
export const npmScript = (subcommand: string): string =>
  subcommand === 'run' ? 'bench' : `bench:${subcommand}`;

/**
 * `npm run <script> -- args` when npm started the subcommand through its alias, else
 * `node dist/bench/cli.js <subcommand> args`: what to type to repeat the run.
 */
export function commandLine(subcommand: string, argv: readonly string[]): string {
  const args = argv.map(quote).join(' ');
  const script = npmScript(subcommand);
  if (process.env.npm_lifecycle_event === script)
    return `npm run ${script}${args === '' ? '' : ` -- ${args}`}`;
  const self = path.relative(REPO_ROOT, benchEntry('cli.js'));
  return `node ${self} ${subcommand}${args === '' ? '' : ` ${args}`}`;
}

/** Runs one subcommand's main to its exit code: 2 for a bad command line, 1 for a failed run. */
export function runEntry(
  name: string,
  argv: readonly string[],
  main: (argv: readonly string[]) => Promise<number>,
): void {
  let interrupted = false;
  const interrupt = (): void => {
    if (interrupted) process.exit(130);
    interrupted = true;
    process.stderr.write(`\n${name}: interrupted, stopping servers and generators\n`);
    void Promise.allSettled([...cleanups].map((f) => f())).then(() => process.exit(130));
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  main(argv).then(
    (code) => process.exit(code),
    (e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`${name}: ${e.message}\n`);
        process.exit(2);
      }
      process.stderr.write(`${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    },
  );
}
