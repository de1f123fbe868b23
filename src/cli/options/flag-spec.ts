// What one flag is: its kind (how the command line gives its value), whether it repeats, and its
// line in --help. Each group of flags (*-flags.ts) is a table of these.

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
