import type { BreakerRecord } from "./Store.js";

/**
 * Durable per-provider state the router shares across every runner process: the circuit breakers
 * (the same rows the runner's Store uses), activation (the latest smoke, an auth failure), the 429
 * back-off, concurrency slots held as leases, and recorded usage for the budgets.
 *
 * Slots are leases: a slot names its expiry, so a runner that crashes frees its slots when they
 * expire; an expired slot's reservation is booked as usage (errand cannot know how long the
 * provider kept billing the orphaned session, so it books the most it reserved).
 *
 * acquireSlot is one write transaction: it expires old slots, counts the live ones against the
 * cap and the budget (recorded usage + live reservations + this reservation) and inserts the new
 * slot only if both hold, so two runners can never both take the last slot or the last budget.
 */
export interface ProviderStore {
  /** Milliseconds since the epoch on the store's clock. */
  now(): Promise<number>;
  close(): Promise<void>;

  // ---- circuit breakers (shared with the runner's Store) --------------------------------------
  readBreaker(provider: string): Promise<BreakerRecord>;
  listBreakers(): Promise<BreakerRecord[]>;
  writeBreaker(next: BreakerRecord, expectedRevision: number): Promise<boolean>;

  // ---- activation and back-off ----------------------------------------------------------------
  /** A provider's recorded state; a provider never recorded has every field null. */
  readProviderState(provider: string): Promise<ProviderStateRecord>;
  listProviderStates(): Promise<ProviderStateRecord[]>;
  /** Records a smoke run: a PASS verifies the provider, anything else un-verifies it. Journals the change. */
  recordSmoke(result: SmokeResult): Promise<ProviderStateRecord>;
  /** Records that the provider refused errand's credential; un-verifies it. Journals the change. */
  recordAuthFailure(provider: string, reason: string): Promise<ProviderStateRecord>;
  /** Records a 429: the router skips the provider until `untilMs` (never shortens a longer back-off). */
  recordBackoff(provider: string, untilMs: number, reason: string): Promise<void>;

  // ---- concurrency slots and usage --------------------------------------------------------------
  acquireSlot(request: SlotRequest): Promise<SlotGrant>;
  /** Frees a slot and books the attempt's usage (when a session was opened) in one transaction. */
  releaseSlot(slotId: string, usage: UsageEntry | null): Promise<void>;
  /** Usage booked since `sinceMs`, and what live slots hold, for one provider. */
  readUsage(provider: string, sinceMs: number): Promise<UsageTotals>;
}

export interface ProviderStateRecord {
  provider: string;
  /** Receipt status of the latest smoke, its operationId, error code and time. */
  smokeStatus: string | null;
  smokeOperationId: string | null;
  smokeErrorCode: string | null;
  smokeMs: number | null;
  /** When the latest smoke PASSed; null when it never did, or when a later smoke or auth failure un-verified it. */
  verifiedMs: number | null;
  /** The latest credential refusal (401/403) and the provider's words for it (scrubbed). */
  authFailedMs: number | null;
  authReason: string | null;
  /** A 429 asked errand to wait until this time. */
  backoffUntilMs: number | null;
  backoffReason: string | null;
  updatedMs: number | null;
}

export interface SmokeResult {
  provider: string;
  operationId: string;
  status: string;
  errorCode: string | null;
}

export interface SlotRequest {
  provider: string;
  /** Who holds it (runner id), for diagnosis. */
  holder: string;
  operationId: string | null;
  /** At most this many live slots for the provider. */
  cap: number;
  /** When the slot frees itself if never released (ms on the store's clock). */
  expiresMs: number;
  /** The most this session may cost, in `unit` (the provider's own); held against the budget while live. */
  reserve: number;
  unit: string;
  /** The budget to check, or null for a provider without one. */
  budget: { limit: number; sinceMs: number } | null;
}

export type SlotGrant =
  | { kind: "acquired"; slotId: string }
  /** Every slot is held; the earliest expires at `freeAtMs` (it may be released sooner). */
  | { kind: "at_cap"; live: number; freeAtMs: number | null }
  /** Booked usage plus live reservations plus this reservation would pass the limit. */
  | { kind: "over_budget"; used: number; reserved: number; limit: number };

export interface UsageEntry {
  provider: string;
  operationId: string | null;
  attempt: number | null;
  /** Session time errand measured (create call to release), ms. */
  sessionMs: number;
  unit: string;
  amount: number;
  usd: number | null;
  /** True when even the rule behind the amount is uncertain (Kernel). */
  estimate: boolean;
}

export interface UsageTotals {
  provider: string;
  /** Booked entries (measured sessions and expired slots). */
  sessions: number;
  sessionMs: number;
  amount: number;
  usd: number | null;
  /** Live slots and the amount they reserve. */
  liveSlots: number;
  reserved: number;
  /** When the earliest live slot expires. */
  nextSlotExpiryMs: number | null;
}
