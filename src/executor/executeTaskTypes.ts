import type { Page } from "playwright-core";
import type { ArtifactBytes } from "../receipt/artifactTypes.js";
import type { EphemeralEvidence, Receipt } from "../receipt/receiptTypes.js";
import type { Task } from "../task/taskTypes.js";
import type { AdmittedTask } from "./admitTask.js";

/** What the runner hands the executor for one attempt. */
export interface AttemptContext {
  requestDigest: string;
  /** 1-based attempt number, reported in the receipt. */
  attempt: number;
  /** Aborted on cancel or lost lease; the executor stops at the next safe point and reports it. */
  signal: AbortSignal;
  /**
   * Awaited before the first step that can change the site is dispatched in a write task, so the
   * runner can record durably that the mutation boundary is about to be crossed.
   */
  beforeMutationBoundary: () => Promise<void>;
  /** Progress for the person watching (CLI stderr, logs). Never carries secret values. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * Reads the page after every step held, while the session and its guards are still up (look
   * uses it to outline the page). It must only read; `scrub` removes the task's secrets.
   */
  observe?: (page: Page, scrub: (text: string) => string) => Promise<void>;
  /**
   * The admission step's answer for this task when the caller already admitted it (the router does,
   * once per attempt, before it chooses a provider); without it the executor admits the task itself
   * (admitTask). Either way the refusals before any browser are decided only there.
   */
  admitted?: AdmittedTask;
}

export type ProgressEvent =
  | { kind: "step_started"; index: number; action: string; total: number }
  | { kind: "step_finished"; index: number; action: string; ok: boolean; durationMs: number }
  | { kind: "note"; message: string };

export interface AttemptOutcome {
  receipt: Receipt;
  /** Extracted values and provider session id, returned live once and never persisted (unless full retention). */
  ephemeral: EphemeralEvidence;
  /** The bytes of the artifacts receipt.artifacts lists (screenshots), for the runner to store; never in the receipt. */
  artifacts?: ArtifactBytes[];
}

/** Runs one attempt of a task and always returns a receipt (failures are receipts, not throws). */
export type ExecuteTask = (task: Task, context: AttemptContext) => Promise<AttemptOutcome>;
