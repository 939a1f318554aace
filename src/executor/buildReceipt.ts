import { decideStatus } from "../receipt/decideStatus.js";
import type { AttemptEnd } from "../receipt/decideStatus.js";
import type { BlockedRequest, EphemeralEvidence, Receipt } from "../receipt/receiptTypes.js";
import type { Task } from "../task/taskTypes.js";
import { isExpectation } from "../task/taskTypes.js";
import { UNTRUSTED_URL_CHARS, untrusted, untrustedValues } from "../receipt/untrustedText.js";
import type { AttemptState, BlockedFacts } from "./attemptState.js";
import type { Redactor } from "./redactor.js";

export interface ReceiptFacts {
  task: Task;
  requestDigest: string;
  attempt: number;
  provider: string;
  /** The main page's URL at the end, plain: it is scrubbed and wrapped here. */
  finalUrl: string | null;
  startedAt: Date;
  durationMs: number;
  sessionId?: string;
  /** Forces BLOCKED: the attempt was refused before any browser action. */
  refusedBeforeBrowser?: boolean;
}

/** How the attempt ended, from its own evidence: the fact decideStatus decides the status from. */
function attemptEnd(task: Task, state: AttemptState, refusedBeforeBrowser: boolean): AttemptEnd {
  if (refusedBeforeBrowser) return { kind: "untouched" };
  const error = state.error;
  if (error === null) return { kind: "ran", expectations: task.steps.filter(isExpectation).length, held: state.checks.filter((check) => check.passed).length };
  return error.code === "cancelled" ? { kind: "cancelled" } : { kind: "stopped", code: error.code };
}

/**
 * Builds the durable receipt and the live-only evidence, scrubbing every secret spelling from both.
 * The addresses the page chose (finalUrl, each blocked request's url and the reason naming it) and,
 * with full retention, the extracted values are put into the untrusted wrapper here, once, after
 * their scrub: the stored receipt, the CLI, REST and MCP then all carry the same wrapped text
 * (docs/RECEIPTS.md "Untrusted page text"). The live-only values stay plain strings: the whole
 * ephemeral object is marked untrusted where it is shown.
 */
export function buildReceipt(facts: ReceiptFacts, state: AttemptState, redactor: Redactor): { receipt: Receipt; ephemeral: EphemeralEvidence } {
  const { task } = facts;
  const full = task.evidenceRetention === "full";
  const receipt: Receipt = {
    receiptVersion: "errand.receipt.v1",
    status: decideStatus({
      write: task.risk !== "read_only",
      crossed: state.mutationBoundary === "crossed",
      end: attemptEnd(task, state, facts.refusedBeforeBrowser === true),
    }),
    operationId: task.operationId,
    requestDigest: facts.requestDigest,
    ...(task.label === undefined ? {} : { label: task.label }),
    risk: task.risk,
    provider: facts.provider,
    finalUrl: facts.finalUrl === null ? null : untrusted(redactor.scrub(facts.finalUrl), UNTRUSTED_URL_CHARS),
    checks: state.checks,
    steps: state.steps,
    error: state.error,
    startedAt: facts.startedAt.toISOString(),
    durationMs: facts.durationMs,
    attempts: facts.attempt,
    network: { ...state.network, blocked: state.network.blocked.map((entry) => blockedRequest(entry, redactor)) },
    mutationBoundary: state.mutationBoundary,
    evidenceRetention: task.evidenceRetention,
    fallback: [],
    ...(state.targetStatus === null ? {} : { targetStatus: state.targetStatus }),
    ...(state.failure === null ? {} : { failure: state.failure }),
    ...(task.evidence === undefined && state.artifacts.length === 0 ? {} : { artifacts: state.artifacts }),
    ...(state.downloadRefusals.length === 0 ? {} : { downloadRefusals: state.downloadRefusals }),
    ...(state.artifactsOmitted === null ? {} : { artifactsOmitted: state.artifactsOmitted }),
    ...(full ? { outputs: untrustedValues(state.outputs) } : {}),
    ...(full && facts.sessionId !== undefined ? { providerSessionId: facts.sessionId } : {}),
  };
  const ephemeral: EphemeralEvidence = {
    ephemeral: true,
    outputs: state.outputs,
    ...(facts.sessionId === undefined ? {} : { providerSessionId: facts.sessionId }),
  };
  return { receipt: redactor.scrubDeep(receipt), ephemeral: redactor.scrubDeep(ephemeral) };
}

function blockedRequest(entry: BlockedFacts, redactor: Redactor): BlockedRequest {
  return { ...entry, url: untrusted(redactor.scrub(entry.url), UNTRUSTED_URL_CHARS), reason: untrusted(redactor.scrub(entry.reason)) };
}
