// What one flag is: its kind (how the command line gives its value), whether it repeats, and its
// line in --help; and what a group of flags may ask of the values the command line gave.

export interface FlagSpec {
  /**
   * `flag` never takes a value; `bool` takes one only when the next word is a boolean, so a bare
   * `--allow-grpc` means true; the others take the next word or what follows `=`.
   */
  readonly kind: 'flag' | 'bool' | 'uint' | 'port' | 'string';
  /** Given more than once, every value is kept (in order); otherwise the last one wins. */
  readonly repeat?: boolean;
  readonly help: string;
}

export type FlagTable = Readonly<Record<string, FlagSpec>>;

/**
 * The values given for the flags named N, each read checked and typed; a group is given the reader
 * of its own flags only. Each read refuses a bad value naming the flag, what it expects and what
 * arrived.
 */
export interface FlagReader<N extends string> {
  /** Whether the command line gave --n at all. */
  has(n: N): boolean;
  /** The last value given for --n (a later one overrides an earlier one). */
  last(n: N): string | undefined;
  /** Every value given for --n, in order (repeatable flags). */
  all(n: N): readonly string[];
  /** true/false, 1/0, yes/no or on/off, in any case; `d` when not given. */
  bool(n: N, d: boolean): boolean;
  /** A whole number from 0 to `max`; `d` when not given. */
  uint(n: N, d: number, max?: number): number;
  /** As uint, refusing 0: for counts, sizes and intervals where 0 would refuse everything. */
  positive(n: N, d: number, max?: number): number;
  /** As positive, refusing 0 and negative integers in Triton's words. */
  aboveZero(n: N, d: number): number;
  /** A note for the operator that the command line does not do what it seems to (logged at start). */
  warn(message: string): void;
}
