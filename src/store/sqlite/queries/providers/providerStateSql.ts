import type { ProviderStateRecord, SmokeResult } from "../../../ProviderStore.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { SqliteContext } from "../../sqliteContext.js";
import type { ProviderStateRow } from "../../../rows/providerStateRows.js";
import { providerStateOf, unrecordedProviderState } from "../../../rows/providerStateRows.js";

/** A provider's state; one never recorded has every field null. */
export function selectProviderState(ctx: SqliteContext, provider: string): ProviderStateRecord {
  const row = ctx.sql("SELECT * FROM provider_states WHERE provider = ?").get(provider) as ProviderStateRow | undefined;
  return row === undefined ? unrecordedProviderState(provider) : providerStateOf(row);
}

export function listProviderStates(ctx: SqliteContext): ProviderStateRecord[] {
  return (ctx.sql("SELECT * FROM provider_states ORDER BY provider").all() as ProviderStateRow[]).map(providerStateOf);
}

/** Records a smoke: PASS sets verified_ms, anything else clears it; journals provider_changed. */
export function recordSmoke(ctx: SqliteContext, result: SmokeResult): ProviderStateRecord {
  const now = ctx.clock();
  const before = selectProviderState(ctx, result.provider);
  const verified = result.status === "PASS";
  ctx
    .sql(
      `INSERT INTO provider_states (provider, smoke_status, smoke_operation_id, smoke_error_code, smoke_ms, verified_ms, updated_ms)
       VALUES (@provider, @status, @operationId, @errorCode, @now, @verifiedMs, @now)
       ON CONFLICT (provider) DO UPDATE SET smoke_status = excluded.smoke_status, smoke_operation_id = excluded.smoke_operation_id,
         smoke_error_code = excluded.smoke_error_code, smoke_ms = excluded.smoke_ms, verified_ms = excluded.verified_ms, updated_ms = excluded.updated_ms`,
    )
    .run({
      provider: result.provider,
      status: result.status,
      operationId: result.operationId,
      errorCode: result.errorCode,
      now,
      verifiedMs: verified ? now : null,
    });
  const body = {
    provider: result.provider,
    change: verified ? "verified" : "smoke_failed",
    smokeOperationId: result.operationId,
    status: result.status,
    code: result.errorCode,
    wasVerified: before.verifiedMs !== null,
  };
  appendJournalEvent(ctx, { type: "provider_changed", operationId: null, body }, now);
  return selectProviderState(ctx, result.provider);
}

/** Records a credential refusal and un-verifies the provider; journals provider_changed (code only, not the text). */
export function recordAuthFailure(ctx: SqliteContext, provider: string, reason: string): ProviderStateRecord {
  const now = ctx.clock();
  const before = selectProviderState(ctx, provider);
  ctx
    .sql(
      `INSERT INTO provider_states (provider, auth_failed_ms, auth_reason, verified_ms, updated_ms)
       VALUES (@provider, @now, @reason, NULL, @now)
       ON CONFLICT (provider) DO UPDATE SET auth_failed_ms = excluded.auth_failed_ms, auth_reason = excluded.auth_reason,
         verified_ms = NULL, updated_ms = excluded.updated_ms`,
    )
    .run({ provider, now, reason });
  const body = { provider, change: "auth_failed", code: "provider_auth_failed", wasVerified: before.verifiedMs !== null };
  appendJournalEvent(ctx, { type: "provider_changed", operationId: null, body }, now);
  return selectProviderState(ctx, provider);
}

/** Sets the 429 back-off, keeping a later one already recorded. Not journaled (it changes no decision of record). */
export function recordBackoff(ctx: SqliteContext, provider: string, untilMs: number, reason: string): void {
  ctx
    .sql(
      `INSERT INTO provider_states (provider, backoff_until_ms, backoff_reason, updated_ms)
       VALUES (@provider, @untilMs, @reason, @now)
       ON CONFLICT (provider) DO UPDATE SET
         backoff_reason = CASE WHEN provider_states.backoff_until_ms IS NULL OR provider_states.backoff_until_ms < excluded.backoff_until_ms THEN excluded.backoff_reason ELSE provider_states.backoff_reason END,
         backoff_until_ms = max(coalesce(provider_states.backoff_until_ms, 0), excluded.backoff_until_ms),
         updated_ms = excluded.updated_ms`,
    )
    .run({ provider, untilMs, reason, now: ctx.clock() });
}
