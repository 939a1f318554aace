import type { EventDraft } from "../journal/journalTypes.js";
import { OWNER_SUBMITTER, operationEvent } from "../journal/operationEvent.js";
import type { Receipt } from "../receipt/receiptTypes.js";
import type { ApprovalDecision, ApprovalEndCode } from "./approvalTypes.js";
import type { AttemptResolution } from "./attemptResolution.js";
import type { CancelOutcome } from "./cancelTypes.js";
import type { OperationPhase } from "./operationPhase.js";
import { isTerminalPhase } from "./operationPhase.js";
import type { NewOperation, OperationRecord } from "./operationRecord.js";
import { operationState } from "./operationRecord.js";
import { ErrandError } from "../errors/errandError.js";

/**
 * The whole lifecycle of an operation on one screen. Each transition takes the operation as it
 * stands, the store's time and its input, checks the phase it comes from, and returns the next
 * record together with the journal event that records it. Backends persist decisions; they do not
 * make them (the SQL in src/store/sqlite and src/store/postgres selects, locks, fences and writes
 * what these, and the decisions built on them here in src/core, return).
 *
 *   create ─────────────> queued | awaiting_approval
 *   approve               awaiting_approval → queued
 *   endAwaiting           awaiting_approval → blocked (denied, expired)
 *   claim                 queued → running (one more attempt, a fresh lease)
 *   crossBoundary         running: mutation boundary not_crossed → crossed (refused once a cancel is pending)
 *   resolve               running → queued (requeue) | completed | blocked | uncertain | cancelled (finish)
 *   cancel                queued | awaiting_approval → cancelled; running → cancel requested (or uncertain past the boundary)
 *   reopen                blocked → queued (the same request again after a refusal that was errand's own fault)
 *
 * Every transition bumps the revision by one and stamps updatedMs, so each event states the
 * revision it produced and the operation's events run 1, 2, 3 … (see operations/attemptHistory).
 */
export interface Transition {
  next: OperationRecord;
  event: EventDraft;
}

/** A transition asked for from a phase it does not start from: a bug in errand, never a user error. */
export class TransitionError extends ErrandError {
  constructor(transition: string, phase: OperationPhase) {
    super("internal_error", `operation transition "${transition}" cannot start from phase "${phase}"`);
  }
}

function from(op: OperationRecord, transition: string, phases: readonly OperationPhase[]): void {
  if (!phases.includes(op.phase)) throw new TransitionError(transition, op.phase);
}

function step(op: OperationRecord, at: number, changes: Partial<OperationRecord>): OperationRecord {
  return { ...op, ...changes, revision: op.revision + 1, updatedMs: at };
}

function record(type: EventDraft["type"], next: OperationRecord, details: Record<string, unknown>): Transition {
  return { next, event: operationEvent(type, operationState(next), details) };
}

/** A new operation: queued, or awaiting the owner's approval for `approvalTtlMs`. Revision 1, no attempt yet. */
export function create(input: NewOperation, at: number): Transition {
  const approvalExpiresMs = input.approvalTtlMs === undefined ? null : at + input.approvalTtlMs;
  const next: OperationRecord = {
    operationId: input.operationId,
    requestDigest: input.requestDigest,
    risk: input.risk,
    phase: approvalExpiresMs === null ? "queued" : "awaiting_approval",
    revision: 1,
    attempts: 0,
    maxAttempts: input.maxAttempts,
    mutationBoundary: "not_crossed",
    runAfterMs: at,
    createdMs: at,
    updatedMs: at,
    finishedMs: null,
    cancelRequested: false,
    receiptStatus: null,
    leaseOwner: null,
    leaseExpiresMs: null,
    approvalExpiresMs,
    submittedBy: input.submittedBy ?? OWNER_SUBMITTER,
  };
  const approval = approvalExpiresMs === null ? {} : { approvalExpiresMs };
  return record("operation_created", next, { ...input.details, ...approval, risk: input.risk, maxAttempts: input.maxAttempts });
}

/** The owner approved: eligible to be claimed from now on. */
export function approve(op: OperationRecord, at: number, decision: ApprovalDecision): Transition {
  from(op, "approve", ["awaiting_approval"]);
  const next = step(op, at, { phase: "queued", runAfterMs: at });
  return record("operation_approved", next, { decidedBy: decision.decidedBy, via: decision.via, decidedMs: at, approvedDigest: decision.requestDigest });
}

/** The wait for approval ends BLOCKED (denied, or expired), with errand's own receipt. */
export function endAwaiting(op: OperationRecord, at: number, code: ApprovalEndCode, receipt: Receipt, details: Record<string, unknown> = {}): Transition {
  from(op, "endAwaiting", ["awaiting_approval"]);
  const next = step(op, at, { phase: "blocked", receiptStatus: receipt.status, finishedMs: at });
  return record("operation_finished", next, { ...details, reason: code, receipt });
}

/** A runner takes the operation: running, one more attempt, leased to `runnerId` until at + leaseMs. */
export function claim(op: OperationRecord, at: number, lease: { runnerId: string; leaseMs: number }): Transition {
  from(op, "claim", ["queued"]);
  const next = step(op, at, { phase: "running", attempts: op.attempts + 1, leaseOwner: lease.runnerId, leaseExpiresMs: at + lease.leaseMs });
  return record("operation_claimed", next, { attempt: next.attempts, runner: lease.runnerId, leaseExpiresMs: at + lease.leaseMs });
}

/**
 * The write is about to make its first change. Refused once a cancel is pending (then nothing may be
 * dispatched); null when the boundary was already crossed (nothing to record).
 */
export function crossBoundary(op: OperationRecord, at: number): Transition | "cancel_requested" | null {
  from(op, "crossBoundary", ["running"]);
  if (op.cancelRequested) return "cancel_requested";
  if (op.mutationBoundary === "crossed") return null;
  return record("mutation_boundary_crossed", step(op, at, { mutationBoundary: "crossed" }), { attempt: op.attempts });
}

/**
 * The attempt in hand ends: back to the queue after a delay, or finished with its receipt (a
 * receipt that says the boundary was crossed marks it crossed). The lease is released either way.
 */
export function resolve(op: OperationRecord, at: number, resolution: AttemptResolution): Transition {
  from(op, "resolve", ["running"]);
  const released = { leaseOwner: null, leaseExpiresMs: null };
  if (resolution.kind === "requeue") {
    const next = step(op, at, { ...released, phase: "queued", runAfterMs: at + resolution.delayMs });
    return record("operation_requeued", next, {
      attempt: op.attempts,
      reason: resolution.reason,
      runAfterMs: next.runAfterMs,
      attemptOutcome: resolution.attemptOutcome,
      errorCode: resolution.errorCode,
      provider: resolution.provider,
    });
  }
  const mutationBoundary = resolution.receipt.mutationBoundary === "crossed" ? "crossed" : op.mutationBoundary;
  const next = step(op, at, { ...released, phase: resolution.phase, mutationBoundary, receiptStatus: resolution.receipt.status, finishedMs: at });
  return record("operation_finished", next, { attempt: op.attempts, reason: resolution.reason, receipt: resolution.receipt });
}

/**
 * A cancel, decided from the phase: queued or awaiting approval → cancelled with a CANCELLED receipt;
 * running before the boundary → cancel requested (the runner stops, the boundary can no longer be
 * crossed); running past it → uncertain, not interrupted (journaled, nothing else changes);
 * finished → nothing to do.
 */
export function cancel(
  op: OperationRecord,
  at: number,
  controlActionId: string,
  cancelledReceipt: () => Receipt,
): { outcome: CancelOutcome; transition: Transition | null } {
  if (isTerminalPhase(op.phase)) return { outcome: "already_terminal", transition: null };
  if (op.phase === "queued" || op.phase === "awaiting_approval") {
    const receipt = cancelledReceipt();
    const next = step(op, at, { phase: "cancelled", receiptStatus: receipt.status, cancelRequested: true, finishedMs: at });
    return { outcome: "cancelled", transition: record("operation_finished", next, { reason: "cancelled", controlActionId, receipt }) };
  }
  if (op.mutationBoundary === "not_crossed") {
    return {
      outcome: "cancel_requested",
      transition: record("cancel_requested", step(op, at, { cancelRequested: true }), { controlActionId, outcome: "cancel_requested" }),
    };
  }
  return { outcome: "uncertain", transition: record("cancel_requested", step(op, at, {}), { controlActionId, outcome: "uncertain" }) };
}

/**
 * The same request submitted again after errand's own environment refused it before any browser
 * opened (the caller judged the authenticated receipt; see operations/environmentRefusal): queued
 * now, its receipt detached, `extraAttempts` more attempts.
 */
export function reopen(op: OperationRecord, at: number, extraAttempts: number, reason: string): Transition {
  from(op, "reopen", ["blocked"]);
  const next = step(op, at, { phase: "queued", runAfterMs: at, receiptStatus: null, finishedMs: null, maxAttempts: op.attempts + extraAttempts });
  return record("operation_reopened", next, { reason, maxAttempts: next.maxAttempts });
}
