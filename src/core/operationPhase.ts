/**
 * awaiting_approval ──owner approves──> queued; ──owner denies / TTL passes / cancel──> blocked | cancelled.
 * queued → running → completed | blocked | uncertain | cancelled; running → queued (retry, lost lease);
 * blocked → queued when a refusal that was errand's own fault is submitted again (reopen).
 * Nothing claims an operation awaiting approval: no browser is touched before the owner says yes.
 */
export const OPERATION_PHASES = ["awaiting_approval", "queued", "running", "completed", "blocked", "uncertain", "cancelled"] as const;
export type OperationPhase = (typeof OPERATION_PHASES)[number];
export type TerminalPhase = Exclude<OperationPhase, "awaiting_approval" | "queued" | "running">;
export const TERMINAL_PHASES: ReadonlySet<OperationPhase> = new Set<OperationPhase>(["completed", "blocked", "uncertain", "cancelled"]);

export function isTerminalPhase(phase: OperationPhase): phase is TerminalPhase {
  return TERMINAL_PHASES.has(phase);
}
