import type { BreakerRecord } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { BreakerRow } from "../../rows/operationRows.js";
import { toBreaker } from "../../rows/operationRows.js";
import type { SqliteContext } from "../sqliteContext.js";

/** A provider's breaker; a provider never recorded is CLOSED with revision 0. */
export function readBreaker(ctx: SqliteContext, provider: string): BreakerRecord {
  const row = ctx.sql("SELECT * FROM provider_breakers WHERE provider = ?").get(provider) as BreakerRow | undefined;
  if (row !== undefined) return toBreaker(row);
  return { provider, state: "CLOSED", failures: 0, openUntilMs: null, probeToken: null, probeExpiresMs: null, revision: 0, updatedMs: 0 };
}

export function listBreakers(ctx: SqliteContext): BreakerRecord[] {
  return (ctx.sql("SELECT * FROM provider_breakers ORDER BY provider").all() as BreakerRow[]).map(toBreaker);
}

/**
 * Compare-and-set on the breaker row: written only if its revision is still `expectedRevision`, so
 * two runners can never both take the single half-open probe. A change of state is journaled.
 */
export function writeBreaker(ctx: SqliteContext, next: BreakerRecord, expectedRevision: number): boolean {
  const current = readBreaker(ctx, next.provider);
  if (current.revision !== expectedRevision) return false;
  const now = ctx.clock();
  const row: BreakerRow = {
    provider: next.provider,
    state: next.state,
    failures: next.failures,
    open_until_ms: next.openUntilMs,
    probe_token: next.probeToken,
    probe_expires_ms: next.probeExpiresMs,
    revision: expectedRevision + 1,
    updated_ms: now,
  };
  ctx
    .sql(
      `INSERT INTO provider_breakers (provider, state, failures, open_until_ms, probe_token, probe_expires_ms, revision, updated_ms)
       VALUES (@provider, @state, @failures, @open_until_ms, @probe_token, @probe_expires_ms, @revision, @updated_ms)
       ON CONFLICT (provider) DO UPDATE SET state = excluded.state, failures = excluded.failures, open_until_ms = excluded.open_until_ms,
         probe_token = excluded.probe_token, probe_expires_ms = excluded.probe_expires_ms, revision = excluded.revision, updated_ms = excluded.updated_ms`,
    )
    .run(row);
  if (current.state !== next.state) {
    const body = { provider: next.provider, from: current.state, to: next.state, failures: next.failures, openUntilMs: next.openUntilMs };
    appendJournalEvent(ctx, { type: "breaker_changed", operationId: null, body }, now);
  }
  return true;
}
