import type { ProviderStateRecord, SmokeResult } from "../../../ProviderStore.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { GuardedWrite } from "../../batchGuard.js";
import { applyGuarded, guard, joinWrites } from "../../batchGuard.js";
import { headIn, requireHead, SELECT_HEAD } from "../../journalHead.js";
import type { LibsqlContext } from "../../libsqlContext.js";
import type { LibsqlResult, LibsqlStatement } from "../../LibsqlClientLike.js";
import { statement } from "../../LibsqlClientLike.js";
import { firstRowIn, queryRows } from "../../libsqlRows.js";
import { optimisticWrite } from "../../optimisticWrite.js";
import type { ProviderStateRow } from "../../../rows/providerStateRows.js";
import { providerStateOf, unrecordedProviderState } from "../../../rows/providerStateRows.js";

const SELECT_STATE = "SELECT * FROM provider_states WHERE provider = ?";

/** A provider's state from a SELECT_STATE result; one never recorded has every field null. */
function stateIn(result: LibsqlResult | undefined, provider: string): ProviderStateRecord {
  const row = firstRowIn<ProviderStateRow>(result);
  return row === undefined ? unrecordedProviderState(provider) : providerStateOf(row);
}

export async function readProviderState(ctx: LibsqlContext, provider: string): Promise<ProviderStateRecord> {
  return stateIn(await ctx.client.execute(statement(SELECT_STATE, provider)), provider);
}

export async function listProviderStates(ctx: LibsqlContext): Promise<ProviderStateRecord[]> {
  return (await queryRows<ProviderStateRow>(ctx.client, "SELECT * FROM provider_states ORDER BY provider")).map(providerStateOf);
}

/** A guard that holds while the provider's state row is as read (absent, or changed at the same time). */
function stateUnchanged(before: ProviderStateRecord): LibsqlStatement {
  return before.updatedMs === null
    ? guard("NOT EXISTS (SELECT 1 FROM provider_states WHERE provider = ?)", before.provider)
    : guard(
        "EXISTS (SELECT 1 FROM provider_states WHERE provider = ? AND updated_ms = ? AND verified_ms IS ?)",
        before.provider,
        before.updatedMs,
        before.verifiedMs,
      );
}

/**
 * Upserts a state change and journals provider_changed with what the state was before, in one batch
 * guarded on the state and the journal head as read; returns the state as written.
 */
function recordChange(
  ctx: LibsqlContext,
  provider: string,
  what: string,
  change: (before: ProviderStateRecord, now: number) => { upsert: LibsqlStatement; after: ProviderStateRecord; body: Record<string, unknown> },
): Promise<ProviderStateRecord> {
  return optimisticWrite(ctx, what, async () => {
    const [stateResult, headResult] = await ctx.client.batch([statement(SELECT_STATE, provider), SELECT_HEAD], "read");
    const before = stateIn(stateResult, provider);
    const now = ctx.clock();
    const { upsert, after, body } = change(before, now);
    const write: GuardedWrite = { guards: [stateUnchanged(before)], writes: [upsert] };
    const journaled = appendJournalEvent(ctx, requireHead(ctx, headIn(headResult)), { type: "provider_changed", operationId: null, body }, now).write;
    await applyGuarded(ctx.client, what, joinWrites(write, journaled));
    return after;
  });
}

/** Records a smoke: PASS sets the verification time, anything else clears it; journals provider_changed. */
export function recordSmoke(ctx: LibsqlContext, result: SmokeResult): Promise<ProviderStateRecord> {
  return recordChange(ctx, result.provider, `recording the smoke of ${result.provider}`, (before, now) => {
    const verified = result.status === "PASS";
    return {
      upsert: statement(
        `INSERT INTO provider_states (provider, smoke_status, smoke_operation_id, smoke_error_code, smoke_ms, verified_ms, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (provider) DO UPDATE SET smoke_status = excluded.smoke_status, smoke_operation_id = excluded.smoke_operation_id,
           smoke_error_code = excluded.smoke_error_code, smoke_ms = excluded.smoke_ms, verified_ms = excluded.verified_ms, updated_ms = excluded.updated_ms`,
        result.provider,
        result.status,
        result.operationId,
        result.errorCode,
        now,
        verified ? now : null,
        now,
      ),
      after: {
        ...before,
        smokeStatus: result.status,
        smokeOperationId: result.operationId,
        smokeErrorCode: result.errorCode,
        smokeMs: now,
        verifiedMs: verified ? now : null,
        updatedMs: now,
      },
      body: {
        provider: result.provider,
        change: verified ? "verified" : "smoke_failed",
        smokeOperationId: result.operationId,
        status: result.status,
        code: result.errorCode,
        wasVerified: before.verifiedMs !== null,
      },
    };
  });
}

/** Records a credential refusal and un-verifies the provider; journals provider_changed (code only, not the text). */
export function recordAuthFailure(ctx: LibsqlContext, provider: string, reason: string): Promise<ProviderStateRecord> {
  return recordChange(ctx, provider, `recording a credential refusal by ${provider}`, (before, now) => ({
    upsert: statement(
      `INSERT INTO provider_states (provider, auth_failed_ms, auth_reason, verified_ms, updated_ms) VALUES (?, ?, ?, NULL, ?)
       ON CONFLICT (provider) DO UPDATE SET auth_failed_ms = excluded.auth_failed_ms, auth_reason = excluded.auth_reason, verified_ms = NULL, updated_ms = excluded.updated_ms`,
      provider,
      now,
      reason,
      now,
    ),
    after: { ...before, authFailedMs: now, authReason: reason, verifiedMs: null, updatedMs: now },
    body: { provider, change: "auth_failed", code: "provider_auth_failed", wasVerified: before.verifiedMs !== null },
  }));
}

/** Sets the 429 back-off, keeping a later one already recorded: one statement. Not journaled (it changes no decision of record). */
export async function recordBackoff(ctx: LibsqlContext, provider: string, untilMs: number, reason: string): Promise<void> {
  await ctx.client.execute(
    statement(
      `INSERT INTO provider_states (provider, backoff_until_ms, backoff_reason, updated_ms) VALUES (?, ?, ?, ?)
       ON CONFLICT (provider) DO UPDATE SET
         backoff_reason = CASE WHEN provider_states.backoff_until_ms IS NULL OR provider_states.backoff_until_ms < excluded.backoff_until_ms THEN excluded.backoff_reason ELSE provider_states.backoff_reason END,
         backoff_until_ms = max(coalesce(provider_states.backoff_until_ms, 0), excluded.backoff_until_ms),
         updated_ms = excluded.updated_ms`,
      provider,
      untilMs,
      reason,
      ctx.clock(),
    ),
  );
}
