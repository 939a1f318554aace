import { randomUUID } from "node:crypto";
import type { SlotGrant, SlotRequest } from "../../../ProviderStore.js";
import type { SqliteContext } from "../../sqliteContext.js";
import { bookExpiredSlot, sumUsageSince } from "./providerUsageSql.js";

interface SlotRow {
  slot_id: string;
  provider: string;
  unit: string;
  reserved: number;
  acquired_ms: number;
  expires_ms: number;
}

/** Slots of a provider whose lease ran out (their holder crashed or never released them). */
function selectExpiredSlots(ctx: SqliteContext, provider: string, now: number): SlotRow[] {
  return ctx
    .sql("SELECT slot_id, provider, unit, reserved, acquired_ms, expires_ms FROM provider_slots WHERE provider = ? AND expires_ms <= ?")
    .all(provider, now) as SlotRow[];
}

function deleteSlot(ctx: SqliteContext, slotId: string): boolean {
  return ctx.sql("DELETE FROM provider_slots WHERE slot_id = ?").run(slotId).changes > 0;
}

/** Live slots of a provider: how many, what they reserve, and when the first expires. */
export function selectLiveSlots(ctx: SqliteContext, provider: string, now: number): { live: number; reserved: number; firstExpiryMs: number | null } {
  const row = ctx
    .sql("SELECT count(*) AS live, coalesce(sum(reserved), 0) AS reserved, min(expires_ms) AS first FROM provider_slots WHERE provider = ? AND expires_ms > ?")
    .get(provider, now) as {
    live: number;
    reserved: number;
    first: number | null;
  };
  return { live: row.live, reserved: row.reserved, firstExpiryMs: row.first };
}

function insertSlot(ctx: SqliteContext, slotId: string, request: SlotRequest, now: number): void {
  ctx
    .sql("INSERT INTO provider_slots (slot_id, provider, holder, operation_id, unit, reserved, acquired_ms, expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
    .run(slotId, request.provider, request.holder, request.operationId, request.unit, request.reserve, now, request.expiresMs);
}

/**
 * Inside one write transaction: books and removes the provider's expired slots, then grants a
 * slot only when fewer than `cap` are live and booked usage + live reservations + this
 * reservation stay within the budget.
 */
export function acquireSlot(ctx: SqliteContext, request: SlotRequest): SlotGrant {
  const now = ctx.clock();
  for (const expired of selectExpiredSlots(ctx, request.provider, now)) {
    bookExpiredSlot(ctx, expired.provider, expired.unit, expired.reserved, expired.expires_ms - expired.acquired_ms, now);
    deleteSlot(ctx, expired.slot_id);
  }
  const live = selectLiveSlots(ctx, request.provider, now);
  if (live.live >= request.cap) return { kind: "at_cap", live: live.live, freeAtMs: live.firstExpiryMs };
  if (request.budget !== null) {
    const used = sumUsageSince(ctx, request.provider, request.budget.sinceMs).amount;
    if (used + live.reserved + request.reserve > request.budget.limit)
      return { kind: "over_budget", used, reserved: live.reserved, limit: request.budget.limit };
  }
  const slotId = randomUUID();
  insertSlot(ctx, slotId, request, now);
  return { kind: "acquired", slotId };
}

/** Frees a slot; false when it was already gone (expired and booked by another runner). */
export function releaseSlot(ctx: SqliteContext, slotId: string): boolean {
  return deleteSlot(ctx, slotId);
}

/** What slots whose lease ran out still reserve until the next acquire books them as usage. */
export function selectExpiredReserved(ctx: SqliteContext, provider: string, now: number): number {
  const row = ctx.sql("SELECT coalesce(sum(reserved), 0) AS reserved FROM provider_slots WHERE provider = ? AND expires_ms <= ?").get(provider, now) as {
    reserved: number;
  };
  return row.reserved;
}
