import type { BreakerRow } from "../../rows/operationRows.js";
import { toBreaker } from "../../rows/operationRows.js";
import type { BreakerRecord } from "../../Store.js";
import { appendJournalEvent } from "../appendJournalEvent.js";
import type { GuardedWrite } from "../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../journalHead.js";
import type { LibsqlContext } from "../libsqlContext.js";
import type { LibsqlResult } from "../LibsqlClientLike.js";
import { statement } from "../LibsqlClientLike.js";
import { firstRowIn, queryRows } from "../libsqlRows.js";
import { optimisticWrite } from "../optimisticWrite.js";

const SELECT_BREAKER = "SELECT * FROM provider_breakers WHERE provider = ?";

/** A provider's breaker from a SELECT_BREAKER result; a provider never recorded is CLOSED with revision 0. */
function breakerIn(result: LibsqlResult | undefined, provider: string): BreakerRecord {
  const row = firstRowIn<BreakerRow>(result);
  if (row !== undefined) return toBreaker(row);
  return { provider, state: "CLOSED", failures: 0, openUntilMs: null, probeToken: null, probeExpiresMs: null, revision: 0, updatedMs: 0 };
}

export async function readBreaker(ctx: LibsqlContext, provider: string): Promise<BreakerRecord> {
  return breakerIn(await ctx.client.execute(statement(SELECT_BREAKER, provider)), provider);
}

export async function listBreakers(ctx: LibsqlContext): Promise<BreakerRecord[]> {
  return (await queryRows<BreakerRow>(ctx.client, "SELECT * FROM provider_breakers ORDER BY provider")).map(toBreaker);
}

/**
 * Compare-and-set on the breaker row: written only if its revision is still `expectedRevision` (the
 * batch's guard re-checks it as it runs), so two runners can never both take the single half-open
 * probe. A change of state is journaled in the same batch, guarded on the journal head it chained from.
 */
export function writeBreaker(ctx: LibsqlContext, next: BreakerRecord, expectedRevision: number): Promise<boolean> {
  return optimisticWrite(ctx, `writing the breaker of ${next.provider}`, async () => {
    const [breakerResult, headResult] = await ctx.client.batch([statement(SELECT_BREAKER, next.provider), SELECT_HEAD], "read");
    const current = breakerIn(breakerResult, next.provider);
    if (current.revision !== expectedRevision) return false;
    const now = ctx.clock();
    const upsert: GuardedWrite = {
      guards: [guard("coalesce((SELECT revision FROM provider_breakers WHERE provider = ?), 0) = ?", next.provider, expectedRevision)],
      writes: [
        statement(
          `INSERT INTO provider_breakers (provider, state, failures, open_until_ms, probe_token, probe_expires_ms, revision, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (provider) DO UPDATE SET state = excluded.state, failures = excluded.failures, open_until_ms = excluded.open_until_ms,
             probe_token = excluded.probe_token, probe_expires_ms = excluded.probe_expires_ms, revision = excluded.revision, updated_ms = excluded.updated_ms`,
          next.provider,
          next.state,
          next.failures,
          next.openUntilMs,
          next.probeToken,
          next.probeExpiresMs,
          expectedRevision + 1,
          now,
        ),
      ],
    };
    if (current.state === next.state) {
      await applyGuarded(ctx.client, `writing the breaker of ${next.provider}`, upsert);
      return true;
    }
    const body = { provider: next.provider, from: current.state, to: next.state, failures: next.failures, openUntilMs: next.openUntilMs };
    const journaled = appendJournalEvent(ctx, requireHead(ctx, headIn(headResult)), { type: "breaker_changed", operationId: null, body }, now);
    await applyGuarded(ctx.client, `writing the breaker of ${next.provider}`, joinWrites(upsert, journaled.write));
    return true;
  });
}
