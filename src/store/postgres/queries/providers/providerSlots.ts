import { randomUUID } from "node:crypto";
import type { SlotGrant, SlotRequest, UsageEntry } from "../../../ProviderStore.js";
import type { PgTx } from "../../pgContext.js";

interface SlotRow {
  slot_id: string;
  provider: string;
  unit: string;
  reserved: number;
  acquired_ms: number;
  expires_ms: number;
}

/**
 * Serializes every slot decision of one provider across all runners on all machines: a
 * transaction-scoped advisory lock keyed by the provider's name, so two acquires can never both see
 * the last free slot or the last of the budget (READ COMMITTED alone would let both count the same
 * rows). Released at commit.
 */
async function lockProvider(tx: PgTx, provider: string): Promise<void> {
  await tx.run("SELECT pg_advisory_xact_lock(hashtext('errand-provider-slots'), hashtext($1))", [provider]);
}

/** Live slots of a provider: how many, what they reserve, and when the first expires. */
export async function selectLiveSlots(tx: PgTx, provider: string): Promise<{ live: number; reserved: number; firstExpiryMs: number | null }> {
  const row = await tx.one<{ live: number; reserved: number; first: number | null }>(
    "SELECT count(*) AS live, coalesce(sum(reserved), 0)::double precision AS reserved, min(expires_ms) AS first FROM provider_slots WHERE provider = $1 AND expires_ms > $2",
    [provider, tx.now],
  );
  return { live: row?.live ?? 0, reserved: row?.reserved ?? 0, firstExpiryMs: row?.first ?? null };
}

/** What slots whose lease ran out still reserve until the next acquire books them as usage. */
export async function selectExpiredReserved(tx: PgTx, provider: string): Promise<number> {
  const row = await tx.one<{ reserved: number }>(
    "SELECT coalesce(sum(reserved), 0)::double precision AS reserved FROM provider_slots WHERE provider = $1 AND expires_ms <= $2",
    [provider, tx.now],
  );
  return row?.reserved ?? 0;
}

/** Usage booked for a provider since a time: entries, session time, amount and dollars. */
export async function sumUsageSince(
  tx: PgTx,
  provider: string,
  sinceMs: number,
): Promise<{ sessions: number; sessionMs: number; amount: number; usd: number | null }> {
  const row = await tx.one<{ sessions: number; session_ms: number; amount: number; usd: number | null }>(
    `SELECT count(*) AS sessions, coalesce(sum(session_ms), 0)::bigint AS session_ms, coalesce(sum(amount), 0)::double precision AS amount, sum(usd)::double precision AS usd
     FROM provider_usage WHERE provider = $1 AND recorded_ms >= $2`,
    [provider, sinceMs],
  );
  return { sessions: row?.sessions ?? 0, sessionMs: row?.session_ms ?? 0, amount: row?.amount ?? 0, usd: row?.usd ?? null };
}

/** Books one attempt's measured usage. */
export async function insertUsage(tx: PgTx, entry: UsageEntry): Promise<void> {
  await tx.run(
    `INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'measured', $9)`,
    [entry.provider, entry.operationId, entry.attempt, entry.sessionMs, entry.unit, entry.amount, entry.usd, entry.estimate ? 1 : 0, tx.now],
  );
}

/**
 * Inside one write transaction, under the provider's lock: books and removes the provider's expired
 * slots (the most each orphaned session may have cost), then grants a slot only when fewer than
 * `cap` are live and booked usage + live reservations + this reservation stay within the budget.
 */
export async function acquireSlot(tx: PgTx, request: SlotRequest): Promise<SlotGrant> {
  await lockProvider(tx, request.provider);
  const expired = await tx.rows<SlotRow>(
    "DELETE FROM provider_slots WHERE provider = $1 AND expires_ms <= $2 RETURNING slot_id, provider, unit, reserved, acquired_ms, expires_ms",
    [request.provider, tx.now],
  );
  for (const slot of expired) {
    await tx.run(
      `INSERT INTO provider_usage (provider, operation_id, attempt, session_ms, unit, amount, usd, estimate, source, recorded_ms)
       VALUES ($1, NULL, NULL, $2, $3, $4, NULL, 1, 'slot_expired', $5)`,
      [slot.provider, Math.max(0, slot.expires_ms - slot.acquired_ms), slot.unit, slot.reserved, tx.now],
    );
  }
  const live = await selectLiveSlots(tx, request.provider);
  if (live.live >= request.cap) return { kind: "at_cap", live: live.live, freeAtMs: live.firstExpiryMs };
  if (request.budget !== null) {
    const used = (await sumUsageSince(tx, request.provider, request.budget.sinceMs)).amount;
    if (used + live.reserved + request.reserve > request.budget.limit)
      return { kind: "over_budget", used, reserved: live.reserved, limit: request.budget.limit };
  }
  const slotId = randomUUID();
  await tx.run(
    "INSERT INTO provider_slots (slot_id, provider, holder, operation_id, unit, reserved, acquired_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    [slotId, request.provider, request.holder, request.operationId, request.unit, request.reserve, tx.now, request.expiresMs],
  );
  return { kind: "acquired", slotId };
}

/** Frees a slot and books its usage; a slot that expired and was booked by another runner is gone, and its reservation already stands for the session. */
export async function releaseSlot(tx: PgTx, slotId: string, usage: UsageEntry | null): Promise<void> {
  const freed = await tx.run("DELETE FROM provider_slots WHERE slot_id = $1", [slotId]);
  if (freed > 0 && usage !== null) await insertUsage(tx, usage);
}
