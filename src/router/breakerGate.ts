import { randomUUID } from "node:crypto";
import type { ProviderStore } from "../store/ProviderStore.js";
import type { BreakerOutcome, BreakerPolicy } from "./circuitBreaker.js";
import { admit, recordOutcome } from "./circuitBreaker.js";

/** What the breaker needs of the router's provider tables. */
export type BreakerStore = Pick<ProviderStore, "readBreaker" | "writeBreaker" | "now">;

export type GateResult = { admitted: true; probeToken: string | null } | { admitted: false; retryAtMs: number | null };

/** Compare-and-set rounds before giving up on a breaker row others keep moving. */
const CAS_ROUNDS = 5;

/** Asks the provider's breaker whether an attempt may start; claims the half-open probe when it is due. */
export async function passBreaker(store: BreakerStore, provider: string, policy: BreakerPolicy): Promise<GateResult> {
  for (let round = 0; round < CAS_ROUNDS; round += 1) {
    const record = await store.readBreaker(provider);
    const decision = admit(record, await store.now(), policy, randomUUID());
    if (decision.kind === "admit") return { admitted: true, probeToken: null };
    if (decision.kind === "refuse") return { admitted: false, retryAtMs: decision.retryAtMs };
    if (await store.writeBreaker(decision.next, record.revision)) return { admitted: true, probeToken: decision.next.probeToken };
  }
  return { admitted: false, retryAtMs: null };
}

/** Feeds an attempt's outcome to the provider's breaker. */
export async function reportToBreaker(
  store: BreakerStore,
  provider: string,
  outcome: BreakerOutcome,
  policy: BreakerPolicy,
  probeToken: string | null,
): Promise<void> {
  for (let round = 0; round < CAS_ROUNDS; round += 1) {
    const record = await store.readBreaker(provider);
    const next = recordOutcome(record, outcome, await store.now(), policy, probeToken);
    if (next === null || (await store.writeBreaker(next, record.revision))) return;
  }
}
