// The one error the harness raises for a bad command line or an unusable target: the entry points
// print its message and exit 2, without a stack trace.

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
