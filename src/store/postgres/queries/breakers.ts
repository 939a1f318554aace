import type { BreakerRecord } from "../../Store.js";
import type { BreakerRow } from "../../rows/operationRows.js";
import { toBreaker } from "../../rows/operationRows.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { PgTx } from "../pgContext.js";

const CLOSED = (provider: string): BreakerRecord => ({
  provider,
  state: "CLOSED",
  failures: 0,
  openUntilMs: null,
  probeToken: null,
  probeExpiresMs: null,
  revision: 0,
  updatedMs: 0,
});

/** A provider's breaker; a provider never recorded is CLOSED with revision 0. */
export async function readBreaker(tx: PgTx, provider: string): Promise<BreakerRecord> {
  const row = await tx.one<BreakerRow>("SELECT * FROM provider_breakers WHERE provider = $1", [provider]);
  return row === undefined ? CLOSED(provider) : toBreaker(row);
}

export async function listBreakers(tx: PgTx): Promise<BreakerRecord[]> {
  return (await tx.rows<BreakerRow>("SELECT * FROM provider_breakers ORDER BY provider")).map(toBreaker);
}

/**
 * Compare-and-set on the breaker row, shared by every runner on every machine: written only if its
 * revision is still `expectedRevision` (the row is locked, and a first write races through the
 * primary key), so two runners can never both take the single half-open probe. A change of state
 * is journaled.
 */
export async function writeBreaker(tx: PgTx, next: BreakerRecord, expectedRevision: number): Promise<boolean> {
  const locked = await tx.one<BreakerRow>("SELECT * FROM provider_breakers WHERE provider = $1 FOR UPDATE", [next.provider]);
  const current = locked === undefined ? CLOSED(next.provider) : toBreaker(locked);
  if (current.revision !== expectedRevision) return false;
  const values = [next.provider, next.state, next.failures, next.openUntilMs, next.probeToken, next.probeExpiresMs, expectedRevision + 1, tx.now];
  const written =
    locked === undefined
      ? await tx.run(
          `INSERT INTO provider_breakers (provider, state, failures, open_until_ms, probe_token, probe_expires_ms, revision, updated_ms)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (provider) DO NOTHING`,
          values,
        )
      : await tx.run(
          `UPDATE provider_breakers SET state = $2, failures = $3, open_until_ms = $4, probe_token = $5, probe_expires_ms = $6, revision = $7, updated_ms = $8
           WHERE provider = $1`,
          values,
        );
  // A first write another runner inserted a moment ago wins: this one read revision 0 and is stale.
  if (written === 0) return false;
  if (current.state !== next.state) {
    const body = { provider: next.provider, from: current.state, to: next.state, failures: next.failures, openUntilMs: next.openUntilMs };
    await appendJournalEvent(tx, { type: "breaker_changed", operationId: null, body }, tx.now);
  }
  return true;
}
