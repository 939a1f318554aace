import type { ErrorCode } from "../errors/errorCodes.js";
import type { EvidenceRetention } from "../task/taskTypes.js";
import type { ArtifactRecord } from "./artifactTypes.js";
import type { FailureContext } from "./outlineTypes.js";
import type { UntrustedText } from "./untrustedText.js";

/**
 * PASS: at least one expectation and all held. PARTIAL: everything ran, nothing was expected.
 * FAIL: a step or expectation failed. BLOCKED: refused before any browser action, or a write that
 * failed before its mutation boundary. UNCERTAIN: a write that may have crossed its boundary and did
 * not finish cleanly. CANCELLED: stopped on request before the boundary.
 */
export const RECEIPT_STATUSES = ["PASS", "PARTIAL", "FAIL", "BLOCKED", "UNCERTAIN", "CANCELLED"] as const;
export type ReceiptStatus = (typeof RECEIPT_STATUSES)[number];

export type MutationBoundary = "not_crossed" | "crossed";

export interface ReceiptError {
  code: ErrorCode;
  /** errand's own words: never page text (URLs a page chose and the browser's words go to detail). */
  message: string;
  /** Index of the step in task.steps, or null when the failure is not tied to a step (-1 is never used). */
  step: number | null;
  /** The browser's own words, which may quote the page (element text, attributes): untrusted. `message` is errand's. */
  detail?: UntrustedText;
  /** With task_timeout: what the running step was doing when the task's budget ran out, and for how long it had waited on the browser. */
  timing?: TimeoutTiming;
}

/**
 * Where a step stood when the task's budget ran out: loading a page (navigation), waiting for its
 * element to appear (waiting), or acting on it once found (acting); waitedMs is the step's time
 * spent waiting for the browser.
 */
export interface TimeoutTiming {
  phase: "navigation" | "waiting" | "acting";
  waitedMs: number;
}

export interface Check {
  step: number;
  action: "expect_text" | "expect_url" | "expect_count";
  expected: string;
  match: string;
  selector?: string;
  passed: boolean;
  /** What was seen instead (the page's text or URL), in the untrusted wrapper, capped at 300 characters; absent when the check passed. */
  observed?: UntrustedText;
}

/**
 * A request the guards stopped. The page chose its address (a host, path or query can spell a
 * sentence) and the reason names it, so both sit in the untrusted wrapper (500 / 300 characters).
 */
export interface BlockedRequest {
  url: UntrustedText;
  method: string;
  resourceType: string;
  code: string;
  reason: UntrustedText;
}

/** A download errand did not keep: from another host, over ERRAND_DOWNLOAD_MAX_BYTES (or the per-attempt count), or failed. */
export interface DownloadRefusal {
  /** The last step that acted (a click, a key, a goto...) before it started; null: before any did, or not known. */
  step: number | null;
  code: "download_off_host" | "download_too_large" | "download_failed";
  /** errand's own words (no page-chosen text). */
  reason: string;
}

export interface NetworkEvidence {
  /** Requests aborted because a read_only task may not send anything but GET/HEAD/OPTIONS. */
  nonGetAborted: number;
  /** Requests (and WebSocket messages, redirect hops) aborted because they carried a typed secret to an origin it is not bound to. */
  secretEgressBlocked: number;
  /** Requests aborted by host or address policy. */
  blockedRequests: number;
  navigationsBlocked: number;
  popupsClosed: number;
  dialogsDismissed: number;
  downloadsRefused: number;
  /** Connections the egress filtering proxy refused (local provider): redirects, rebinding, anything that got past layer 2. */
  egressBlocked: number;
  /** The first few blocked requests, for the person reading the receipt. */
  blocked: BlockedRequest[];
  /** Per-host preflight evidence: addresses, resolver, verdict. */
  preflight: PreflightEvidence[];
}

export interface PreflightEvidence {
  url: string;
  host: string;
  verdict: "allow" | "block";
  code: string;
  resolver: string;
  addresses: { ip: string; verdict: string }[];
}

export interface StepRecord {
  index: number;
  action: string;
  status: "ok" | "failed" | "skipped";
  durationMs: number;
}

export interface FallbackRecord {
  provider: string;
  outcome: "used" | "skipped" | "failed";
  code?: string;
  /** Why, in the untrusted wrapper: it repeats an attempt's error message, which may carry a provider's (or page's) words. */
  reason?: UntrustedText;
}

export interface Receipt {
  receiptVersion: "errand.receipt.v1";
  status: ReceiptStatus;
  operationId: string;
  requestDigest: string;
  label?: string;
  risk: string;
  provider: string;
  /** The main page's URL at the end (secrets scrubbed), in the untrusted wrapper (500 characters): the page chose it. */
  finalUrl: UntrustedText | null;
  checks: Check[];
  steps: StepRecord[];
  error: ReceiptError | null;
  startedAt: string;
  durationMs: number;
  attempts: number;
  network: NetworkEvidence;
  mutationBoundary: MutationBoundary;
  evidenceRetention: EvidenceRetention;
  fallback: FallbackRecord[];
  /** HTTP status the target's main document answered with; absent when it never answered (network error, refused before the browser). */
  targetStatus?: number;
  /** Set on a FAIL: whether errand runs the operation again, and why (see runner/decideRetry). */
  retry?: RetryVerdict;
  /** A failed step's page: URL, title, a short outline and candidate selectors (only when a step failed on a page). */
  failure?: FailureContext;
  /** Evidence files of this attempt (screenshots, and files its steps downloaded from the task's hosts), by index, hash and size; present when the task asked for screenshots (evidence.screenshots) or a step downloaded a file. */
  artifacts?: ArtifactRecord[];
  /** Downloads errand refused, the first 10 (all are counted in network.downloadsRefused); present when there was one. */
  downloadRefusals?: DownloadRefusal[];
  /** Why an artifact the task asked for was not taken (page gone, over the byte cap, a secret shown on the page). */
  artifactsOmitted?: string;
  /**
   * Extracted values by output name, each in the untrusted wrapper (whole, as the page had it, up
   * to 10,000 characters: untrustedValue): present only with evidenceRetention "full".
   */
  outputs?: Record<string, UntrustedText>;
  /** Provider session id: present only with evidenceRetention "full". */
  providerSessionId?: string;
}

/** errand's verdict on retrying a failed attempt: "retry" (it runs again after ERRAND_RETRY_DELAY_MS) or "final", with the reason. */
export interface RetryVerdict {
  decision: "retry" | "final";
  reason: string;
}

/** Extracted values and the provider session id outside the durable receipt: held sealed for ERRAND_RESULT_TTL for collect, then dropped (persisted in the receipt only with retention full). */
export interface EphemeralEvidence {
  ephemeral: true;
  outputs: Record<string, string>;
  providerSessionId?: string;
}
