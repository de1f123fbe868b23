#!/usr/bin/env node
// infernode-bench: one command, one subcommand per bench (bench/subcommands.ts), every flag parsed
// by one parser from the subcommand's flag table (bench/options/flag-parser.ts). The npm scripts
// `bench` and `bench:<name>` are aliases: `npm run bench:compare -- -m mlp` is
// `node dist/bench/cli.js compare -m mlp`.

import { npmScript, runEntry } from './entry.js';
import { helpText, splitRest, tokenize } from './options/flag-parser.js';
import { UsageError } from './options/usage-error.js';
import { SUBCOMMANDS, type Subcommand, type SubcommandModule } from './subcommands.js';

const USAGE =
  'Usage: node dist/bench/cli.js <subcommand> [flags]   (npm run bench:<subcommand> -- [flags])';

function overview(): string {
  const width = Math.max(...SUBCOMMANDS.map((s) => s.name.length));
  const rows = SUBCOMMANDS.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`);
  return (
    `${USAGE}\n\nSubcommands:\n${rows.join('\n')}\n\n` +
    '`<subcommand> --help` lists its flags. `npm run bench` is `run`.\n'
  );
}

function subcommandHelp(sub: Subcommand, mod: SubcommandModule): string {
  const rest = mod.rest === undefined ? '' : ` [-- ${mod.rest}]`;
  const usage =
    `Usage: npm run ${npmScript(sub.name)} -- [flags]${rest}   ` +
    `(node dist/bench/cli.js ${sub.name} [flags]${rest})\n${sub.summary}`;
  return helpText(usage, mod.flags);
}

async function main(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(overview());
    return name === undefined ? 2 : 0;
  }
  const sub = SUBCOMMANDS.find((s) => s.name === name);
  if (sub === undefined) {
    throw new UsageError(
      `unknown subcommand "${name}": expected one of ${SUBCOMMANDS.map((s) => s.name).join(', ')}`,
    );
  }
  const mod = await sub.load();
  if (mod.rest === undefined && rest.includes('--')) {
    throw new UsageError(`${sub.name} takes nothing after --`);
  }
  // Parsed here once for --help and for the errors every subcommand reports alike; the
  // subcommand parses its table again into its own options.
  const raw = tokenize(splitRest(rest).flags, mod.flags, mod.refusals);
  if (raw.get('help')?.[0] === 'true') {
    process.stdout.write(subcommandHelp(sub, mod));
    return 0;
  }
  return mod.main(rest);
}

const argv = process.argv.slice(2);
runEntry(`infernode-bench ${argv[0] ?? ''}`.trimEnd(), argv, main);
