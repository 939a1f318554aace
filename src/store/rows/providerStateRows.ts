import type { ProviderStateRecord } from "../ProviderStore.js";

/** A provider_states row as every SQL backend returns it. */
export interface ProviderStateRow {
  provider: string;
  smoke_status: string | null;
  smoke_operation_id: string | null;
  smoke_error_code: string | null;
  smoke_ms: number | null;
  verified_ms: number | null;
  auth_failed_ms: number | null;
  auth_reason: string | null;
  backoff_until_ms: number | null;
  backoff_reason: string | null;
  updated_ms: number;
}

/** A provider's state from its row. */
export function providerStateOf(row: ProviderStateRow): ProviderStateRecord {
  return {
    provider: row.provider,
    smokeStatus: row.smoke_status,
    smokeOperationId: row.smoke_operation_id,
    smokeErrorCode: row.smoke_error_code,
    smokeMs: row.smoke_ms,
    verifiedMs: row.verified_ms,
    authFailedMs: row.auth_failed_ms,
    authReason: row.auth_reason,
    backoffUntilMs: row.backoff_until_ms,
    backoffReason: row.backoff_reason,
    updatedMs: row.updated_ms,
  };
}

/** The state of a provider never recorded (no row): every field null. */
export function unrecordedProviderState(provider: string): ProviderStateRecord {
  return {
    provider,
    smokeStatus: null,
    smokeOperationId: null,
    smokeErrorCode: null,
    smokeMs: null,
    verifiedMs: null,
    authFailedMs: null,
    authReason: null,
    backoffUntilMs: null,
    backoffReason: null,
    updatedMs: null,
  };
}
