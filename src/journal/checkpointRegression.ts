import { checkpointDigest } from "./checkpointDigest.js";
import type { JournalSealer } from "./createJournalSealer.js";
import type { CheckpointEntry, JournalHead } from "./journalTypes.js";

/**
 * Why the stored checkpoint cannot be replaced, or null. A new checkpoint only ever moves forward:
 * it is refused over a stored list the head does not sign, or over an operation that regressed
 * (`regressed`, found by the store: store/rows/checkpointRegressionSql.ts), so writing one can never bless a deletion or a
 * rollback that the old one would still reveal.
 */
export function checkpointRegression(
  sealer: JournalSealer,
  head: JournalHead,
  stored: readonly CheckpointEntry[],
  regressed: string | undefined,
): string | null {
  if (stored.length !== head.checkpointOperations || !sealer.macEquals(head.checkpointDigest, checkpointDigest(stored)))
    return "the stored checkpoint is not the one the journal head signs";
  if (regressed !== undefined) return `operation ${regressed}, listed in the last checkpoint, was deleted or rolled back to before the place recorded for it`;
  return null;
}
