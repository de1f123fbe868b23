// The one error `infernode validate` answers with exit status 2: the command was asked for something
// it cannot evaluate (a bad flag, a missing model, version or file). Its message says what was
// expected and what arrived. Everything else the candidate gets wrong is a failed check (status 1).

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function usage(message: string): UsageError {
  return new UsageError(message);
}
