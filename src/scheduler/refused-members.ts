// The members of a batch refused before it ran (their data failed to copy into the run's block: a
// region shrunk since validation), put back into the run's outcome in their places. Shared by the
// dynamic and sequence batchers.

import type { InferenceServerError } from '../errors.js';
import type { RunOutcome } from './scheduling-strategy.js';

/**
 * Puts the members refused before the run back into `outcome`, which covers only the members that
 * ran: outputs are re-indexed to every member's place and the refused ones carry their own error.
 */
export function withRefused(
  outcome: RunOutcome,
  refused: readonly (InferenceServerError | undefined)[],
): RunOutcome {
  // Members that ran and failed on their own (a JavaScript model's per-request errors) keep theirs.
  let ranAt = 0;
  const wire = refused.map((e) => e?.toWire() ?? outcome.refused?.[ranAt++]);
  if (!outcome.ok) return { ...outcome, refused: wire };
  let next = 0;
  const outputs = refused.map((e) => (e === undefined ? (outcome.outputs[next++] ?? []) : []));
  return { ...outcome, outputs, refused: wire };
}
