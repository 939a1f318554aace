import { ErrandError } from "../errors/errandError.js";
/** Why the runner aborts an attempt's signal; the executor sees it as `signal.reason`. */
export class AttemptStop extends ErrandError {
  constructor(
    readonly reason: "cancelled" | "lease_lost" | "timeout",
    message: string,
  ) {
    super(reason === "lease_lost" ? "lease_expired" : reason, message);
    this.name = "AttemptStop";
  }
}

/**
 * How a runner learns it no longer holds an attempt's lease: "expired" when its lease ran out on the
 * store's clock before it was renewed (the runner is alive but was starved of CPU or slow to reach
 * the store, and nobody recovered the operation yet); "taken" when the token no longer holds the
 * operation at all (another runner recovered it after the lease ran out).
 */
export type LeaseLoss = "expired" | "taken";

export function leaseLostStop(loss: LeaseLoss): AttemptStop {
  return new AttemptStop(
    "lease_lost",
    loss === "expired"
      ? "This runner's lease ran out before it could renew it (starved of CPU or slow to reach the store for longer than the lease); the attempt was stopped."
      : "Another runner recovered this operation after its lease ran out; this runner stopped the attempt and writes nothing more for it.",
  );
}
