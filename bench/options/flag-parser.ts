// The one command-line parser of every bench subcommand: a subcommand declares its flags in a
// table (name, kind, default, help), and the same table drives parsing and `--help`, so the two
// cannot disagree. Accepts `--flag value`, `--flag=value`, `-m value` and `-mvalue` (perf_analyzer
// parses with getopt_long, so both short spellings appear in its docs).

import { UsageError } from './usage-error.js';

export type FlagKind = 'string' | 'uint' | 'number' | 'flag';

export interface FlagSpec {
  readonly kind: FlagKind;
  readonly short?: string;
  readonly repeat?: boolean;
  /** The value when the flag is not given, as typed on a command line (shown in --help). */
  readonly default?: string;
  readonly help: string;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

/** Each flag's values in the order given (one unless the flag repeats). */
export type RawValues = Map<string, string[]>;

/** Flags another tool has that a subcommand refuses on purpose, with what to use instead. */
export type Refusals = Readonly<Record<string, string>>;

/** Every subcommand takes -h/--help. */
export const HELP_FLAG = { kind: 'flag', short: 'h', help: 'Print this help' } as const;

export function tokenize(
  argv: readonly string[],
  table: FlagTable,
  refusals: Refusals = {},
): RawValues {
  const short = new Map(
    Object.entries(table).flatMap(([name, spec]) =>
      spec.short === undefined ? [] : [[spec.short, name] as const],
    ),
  );
  const values: RawValues = new Map();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] ?? '';
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (arg.startsWith('-') && arg.length >= 2) {
      const long = short.get(arg[1] ?? '');
      if (long === undefined) throw new UsageError(`unknown flag ${arg} (see --help)`);
      name = long;
      const rest = arg.slice(2);
      inline = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest;
    } else {
      throw new UsageError(`unexpected argument "${arg}": flags start with - or --`);
    }
    const refused = Object.hasOwn(refusals, name) ? refusals[name] : undefined;
    if (refused !== undefined) {
      throw new UsageError(`perf_analyzer's --${name} is not supported here: ${refused}`);
    }
    const spec = Object.hasOwn(table, name) ? table[name] : undefined;
    if (spec === undefined) throw new UsageError(`unknown flag --${name} (see --help)`);
    let value: string;
    if (spec.kind === 'flag') {
      value = inline ?? 'true';
      if (value !== 'true' && value !== 'false') {
        throw new UsageError(`--${name} takes no value (or =true/=false), got "${value}"`);
      }
    } else if (inline !== undefined) {
      value = inline;
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`--${name} needs a value`);
      value = next;
      i += 1;
    }
    const list = values.get(name) ?? [];
    if (list.length > 0 && spec.repeat !== true) {
      throw new UsageError(`--${name} given twice ("${list[0] ?? ''}" and "${value}")`);
    }
    list.push(value);
    values.set(name, list);
  }
  return values;
}

type ValueOf<S extends FlagSpec> = S['kind'] extends 'flag'
  ? boolean
  : S extends { readonly repeat: true }
    ? string[]
    : S extends { readonly default: string }
      ? string
      : string | undefined;

/** What `parseFlags` returns for a table: booleans for flags, lists for repeats, else text. */
export type FlagValues<T extends FlagTable> = { readonly [K in keyof T]: ValueOf<T[K]> };

/**
 * argv -> each flag's value as text (its default when absent), for a subcommand that checks its
 * own numbers. Subcommands with many numeric flags read RawValues through their own reader.
 */
export function parseFlags<T extends FlagTable>(
  argv: readonly string[],
  table: T,
): { readonly help: boolean; readonly values: FlagValues<T> } {
  const raw = tokenize(argv, table);
  const values: Record<string, string | string[] | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(table)) {
    const given = raw.get(name);
    if (spec.kind === 'flag') values[name] = (given?.[0] ?? spec.default ?? 'false') === 'true';
    else if (spec.repeat === true) values[name] = given ?? [];
    else values[name] = given?.[0] ?? spec.default;
  }
  return { help: values['help'] === true, values: values as FlagValues<T> };
}

/** A command line split at `--`: the flags before it, and what follows (passed on as it is). */
export function splitRest(argv: readonly string[]): { flags: string[]; rest: string[] } {
  const end = argv.indexOf('--');
  return end === -1
    ? { flags: [...argv], rest: [] }
    : { flags: argv.slice(0, end), rest: argv.slice(end + 1) };
}

/** `--help` text: the usage lines, then one row per flag of the table, in table order. */
export function helpText(usage: string, table: FlagTable): string {
  const rows = Object.entries(table).map(([name, spec]) => {
    const flag = `${spec.short !== undefined ? `-${spec.short}, ` : '    '}--${name}`;
    const dflt =
      spec.default !== undefined && spec.kind !== 'flag' ? ` (default: ${spec.default})` : '';
    return `  ${flag.padEnd(28)} ${spec.help}${dflt}`;
  });
  return `${usage.trimEnd()}\n\nFlags:\n${rows.join('\n')}\n`;
}
