import type { EphemeralEvidence, Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import { settleWriteStatus } from "../receipt/settleWriteStatus.js";
import type { Task } from "../task/taskTypes.js";
import { isExpectation } from "../task/taskTypes.js";
import type { AttemptState } from "./attemptState.js";
import type { Redactor } from "./redactor.js";

export interface ReceiptFacts {
  task: Task;
  requestDigest: string;
  attempt: number;
  provider: string;
  finalUrl: string | null;
  startedAt: Date;
  durationMs: number;
  sessionId?: string;
  /** Forces BLOCKED: the attempt was refused before any browser action. */
  refusedBeforeBrowser?: boolean;
}

/** Decides the status from evidence: PASS needs at least one expectation and every one held. */
export function decideStatus(task: Task, state: AttemptState, refusedBeforeBrowser: boolean): ReceiptStatus {
  if (refusedBeforeBrowser) return "BLOCKED";
  const error = state.error;
  const write = task.risk !== "read_only";
  if (error !== null) {
    const failed: ReceiptStatus = error.code === "cancelled" ? "CANCELLED" : "FAIL";
    // A write that did not finish: the same rule the runner applies with the store's boundary.
    if (write) return settleWriteStatus(failed, { code: error.code, cancelled: error.code === "cancelled", crossed: state.mutationBoundary === "crossed" });
    // A secret refused by its site binding: nothing was typed, nothing sent.
    if (error.code === "secret_site_mismatch" && state.mutationBoundary === "not_crossed") return "BLOCKED";
    return failed;
  }
  const expectations = task.steps.filter(isExpectation).length;
  const allHeld = state.checks.length === expectations && state.checks.every((check) => check.passed);
  if (expectations === 0) return "PARTIAL";
  return allHeld ? "PASS" : "FAIL";
}

/** Builds the durable receipt and the live-only evidence, scrubbing every secret spelling from both. */
export function buildReceipt(facts: ReceiptFacts, state: AttemptState, redactor: Redactor): { receipt: Receipt; ephemeral: EphemeralEvidence } {
  const { task } = facts;
  const full = task.evidenceRetention === "full";
  const receipt: Receipt = {
    receiptVersion: "errand.receipt.v1",
    status: decideStatus(task, state, facts.refusedBeforeBrowser === true),
    operationId: task.operationId,
    requestDigest: facts.requestDigest,
    ...(task.label === undefined ? {} : { label: task.label }),
    risk: task.risk,
    provider: facts.provider,
    finalUrl: facts.finalUrl,
    checks: state.checks,
    steps: state.steps,
    error: state.error,
    startedAt: facts.startedAt.toISOString(),
    durationMs: facts.durationMs,
    attempts: facts.attempt,
    network: state.network,
    mutationBoundary: state.mutationBoundary,
    evidenceRetention: task.evidenceRetention,
    fallback: [],
    ...(state.targetStatus === null ? {} : { targetStatus: state.targetStatus }),
    ...(state.failure === null ? {} : { failure: state.failure }),
    ...(task.evidence === undefined ? {} : { artifacts: state.artifacts }),
    ...(state.artifactsOmitted === null ? {} : { artifactsOmitted: state.artifactsOmitted }),
    ...(full ? { outputs: state.outputs } : {}),
    ...(full && facts.sessionId !== undefined ? { providerSessionId: facts.sessionId } : {}),
  };
  const ephemeral: EphemeralEvidence = {
    ephemeral: true,
    outputs: state.outputs,
    ...(facts.sessionId === undefined ? {} : { providerSessionId: facts.sessionId }),
  };
  return { receipt: redactor.scrubDeep(receipt), ephemeral: redactor.scrubDeep(ephemeral) };
}
