import type { ProviderStateRecord, SmokeResult } from "../../../ProviderStore.js";
import { appendJournalEvent } from "../../appendJournalEvent.js";
import type { PgTx } from "../../pgContext.js";
import type { ProviderStateRow } from "../../../rows/providerStateRows.js";
import { providerStateOf, unrecordedProviderState } from "../../../rows/providerStateRows.js";

/** A provider's state; one never recorded has every field null. */
export async function selectProviderState(tx: PgTx, provider: string): Promise<ProviderStateRecord> {
  const row = await tx.one<ProviderStateRow>("SELECT * FROM provider_states WHERE provider = $1", [provider]);
  return row === undefined ? unrecordedProviderState(provider) : providerStateOf(row);
}

export async function listProviderStates(tx: PgTx): Promise<ProviderStateRecord[]> {
  return (await tx.rows<ProviderStateRow>("SELECT * FROM provider_states ORDER BY provider")).map(providerStateOf);
}

/** Records a smoke: PASS sets verified_ms, anything else clears it; journals provider_changed. */
export async function recordSmoke(tx: PgTx, result: SmokeResult): Promise<ProviderStateRecord> {
  const before = await selectProviderState(tx, result.provider);
  const verified = result.status === "PASS";
  await tx.run(
    `INSERT INTO provider_states (provider, smoke_status, smoke_operation_id, smoke_error_code, smoke_ms, verified_ms, updated_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $5)
     ON CONFLICT (provider) DO UPDATE SET smoke_status = excluded.smoke_status, smoke_operation_id = excluded.smoke_operation_id,
       smoke_error_code = excluded.smoke_error_code, smoke_ms = excluded.smoke_ms, verified_ms = excluded.verified_ms, updated_ms = excluded.updated_ms`,
    [result.provider, result.status, result.operationId, result.errorCode, tx.now, verified ? tx.now : null],
  );
  const body = {
    provider: result.provider,
    change: verified ? "verified" : "smoke_failed",
    smokeOperationId: result.operationId,
    status: result.status,
    code: result.errorCode,
    wasVerified: before.verifiedMs !== null,
  };
  await appendJournalEvent(tx, { type: "provider_changed", operationId: null, body }, tx.now);
  return selectProviderState(tx, result.provider);
}

/** Records a credential refusal and un-verifies the provider; journals provider_changed (code only, not the text). */
export async function recordAuthFailure(tx: PgTx, provider: string, reason: string): Promise<ProviderStateRecord> {
  const before = await selectProviderState(tx, provider);
  await tx.run(
    `INSERT INTO provider_states (provider, auth_failed_ms, auth_reason, verified_ms, updated_ms)
     VALUES ($1, $2, $3, NULL, $2)
     ON CONFLICT (provider) DO UPDATE SET auth_failed_ms = excluded.auth_failed_ms, auth_reason = excluded.auth_reason,
       verified_ms = NULL, updated_ms = excluded.updated_ms`,
    [provider, tx.now, reason],
  );
  const body = { provider, change: "auth_failed", code: "provider_auth_failed", wasVerified: before.verifiedMs !== null };
  await appendJournalEvent(tx, { type: "provider_changed", operationId: null, body }, tx.now);
  return selectProviderState(tx, provider);
}

/** Sets the 429 back-off, keeping a later one already recorded. Not journaled (it changes no decision of record). */
export async function recordBackoff(tx: PgTx, provider: string, untilMs: number, reason: string): Promise<void> {
  await tx.run(
    `INSERT INTO provider_states (provider, backoff_until_ms, backoff_reason, updated_ms)
     VALUES ($1, $2, $3, $4)
     ON CONFLICT (provider) DO UPDATE SET
       backoff_reason = CASE WHEN provider_states.backoff_until_ms IS NULL OR provider_states.backoff_until_ms < excluded.backoff_until_ms THEN excluded.backoff_reason ELSE provider_states.backoff_reason END,
       backoff_until_ms = greatest(coalesce(provider_states.backoff_until_ms, 0), excluded.backoff_until_ms),
       updated_ms = excluded.updated_ms`,
    [provider, untilMs, reason, tx.now],
  );
}
