// Reads argv against the flag table into the values given for each flag, and serves them to the
// groups of flags as a FlagReader. Nothing is typed here beyond words: each group reads its own.

import { fail } from '../../errors.js';
import type { FlagReader, FlagSpec } from './flag-spec.js';
import { isBool, parseAboveZero, parseBool, parseUint, refuseZero } from './value-parsers.js';

/** The values argv gave for the flags of `table`, refusing an unknown flag or a missing value. */
export function readFlags<N extends string>(
  argv: readonly string[],
  table: Readonly<Record<N, FlagSpec>>,
): FlagValues<N> {
  const specs = table as Readonly<Record<string, FlagSpec | undefined>>;
  const values = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--'))
      throw fail('BAD_REQUEST', `unexpected argument '${arg}': flags start with --`);
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    // Own keys only: `--constructor` or `--__proto__` would otherwise find Object.prototype's.
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec === undefined) throw fail('BAD_REQUEST', `unknown flag --${name}; see --help`);
    let value: string;
    if (eq !== -1) value = arg.slice(eq + 1);
    else if (spec.kind === 'flag' || (spec.kind === 'bool' && !isBool(argv[i + 1]))) value = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined) throw fail('BAD_REQUEST', `flag --${name} needs a value`);
      value = next;
      i++;
    }
    const list = values.get(name) ?? [];
    list.push(value);
    values.set(name, list);
  }
  return new FlagValues<N>(values);
}

export class FlagValues<N extends string> implements FlagReader<N> {
  /** What warn() was given, in order. */
  readonly warnings: string[] = [];
  readonly #values: ReadonlyMap<string, readonly string[]>;

  constructor(values: ReadonlyMap<string, readonly string[]>) {
    this.#values = values;
  }

  has(n: N): boolean {
    return this.#values.has(n);
  }

  last(n: N): string | undefined {
    return this.#values.get(n)?.at(-1);
  }

  all(n: N): readonly string[] {
    return this.#values.get(n) ?? [];
  }

  bool(n: N, d: boolean): boolean {
    const v = this.last(n);
    return v === undefined ? d : parseBool(n, v);
  }

  uint(n: N, d: number, max?: number): number {
    const v = this.last(n);
    return v === undefined ? d : parseUint(n, v, max);
  }

  positive(n: N, d: number, max?: number): number {
    return refuseZero(n, this.uint(n, d, max));
  }

  aboveZero(n: N, d: number): number {
    const v = this.last(n);
    return v === undefined ? d : parseAboveZero(n, v);
  }

  warn(message: string): void {
    this.warnings.push(message);
  }
}
