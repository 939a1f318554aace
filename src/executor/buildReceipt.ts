import type { EphemeralEvidence, Receipt, ReceiptStatus } from "../receipt/receiptTypes.js";
import type { Task } from "../task/taskTypes.js";
import { isExpectation } from "../task/taskTypes.js";
import type { AttemptState } from "./attemptState.js";
import type { Redactor } from "./redactor.js";

/** Codes that mean "we do not know how far the site got": after the boundary, a write is UNCERTAIN. */
const INCONCLUSIVE_CODES = new Set(["timeout", "cancelled", "internal_error", "provider_unavailable"]);

/** Failures of errand or the provider rather than of the site. */
const INFRASTRUCTURE_CODES = new Set(["internal_error", "provider_unavailable"]);

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
    if (write && state.mutationBoundary === "crossed" && INCONCLUSIVE_CODES.has(error.code)) return "UNCERTAIN";
    // A write whose infrastructure failed before anything could change the site is proven side-effect free.
    if (write && state.mutationBoundary === "not_crossed" && INFRASTRUCTURE_CODES.has(error.code)) return "BLOCKED";
    // A secret refused by its site binding before anything changed: nothing was typed, nothing sent.
    if (error.code === "secret_site_mismatch" && state.mutationBoundary === "not_crossed") return "BLOCKED";
    if (error.code === "cancelled") return "CANCELLED";
    return "FAIL";
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
