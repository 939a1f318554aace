/** Why the runner aborts an attempt's signal; the executor sees it as `signal.reason`. */
export class AttemptStop extends Error {
  constructor(
    readonly reason: "cancelled" | "lease_lost" | "timeout",
    message: string,
  ) {
    super(message);
    this.name = "AttemptStop";
  }
}
