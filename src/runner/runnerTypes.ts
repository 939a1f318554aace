import type { RuntimeConfig } from "../config/runtimeConfig.js";
import type { ExecuteTask, ProgressEvent } from "../executor/executeTaskTypes.js";
import type { ArtifactBytes } from "../receipt/artifactTypes.js";
import type { EphemeralEvidence, ReceiptStatus } from "../receipt/receiptTypes.js";
import type { IntegrityRefusal, OperationPhase, RecoveredLease, Store } from "../store/Store.js";
import type { Task } from "../task/taskTypes.js";
import type { LeaseLoss } from "./attemptStop.js";

/** Everything the runner needs, injected: the store, the executor, the digest key and the timing. */
export interface RunnerDeps {
  store: Store;
  execute: ExecuteTask;
  /** Key of the request digest: a stored task is re-digested before it runs, so a tampered one never does. */
  digestKey: Uint8Array;
  config: Pick<RuntimeConfig, "leaseMs" | "heartbeatMs" | "retryDelayMs" | "browserTimeoutMs" | "cancelPollMs">;
  /** Names this runner in leases and events (host:pid:random by default). */
  runnerId: string;
  /** Structured notices for whoever watches the runner (CLI stderr, logs). */
  onEvent?: (event: RunnerEvent) => void;
  /** Claim only this operation (set from RunQueueOptions.onlyOperationId). */
  onlyOperationId?: string;
  /**
   * Keeps an attempt's extracted values and provider session id for collect (sealed, for a while;
   * see operations/heldResults). Called before the attempt is resolved, so a collect that sees the
   * receipt finds the values too; a failure is reported as a store_error and the receipt still stored.
   */
  holdResult?: (operationId: string, requestDigest: string, attempt: number, ephemeral: EphemeralEvidence) => Promise<void>;
  /**
   * Keeps an attempt's artifacts (evidence screenshots; see operations/artifactKeeping), before the
   * attempt is resolved. A failure is reported as a store_error and noted in the receipt's
   * artifactsOmitted; the receipt is still stored.
   */
  keepArtifacts?: (
    operationId: string,
    requestDigest: string,
    attempt: number,
    retention: Task["evidenceRetention"],
    artifacts: readonly ArtifactBytes[],
  ) => Promise<void>;
}

export type RunnerEvent =
  | { kind: "recovered"; operationId: string; resolution: RecoveredLease["resolution"]; phase: OperationPhase }
  | { kind: "claimed"; operationId: string; attempt: number }
  | { kind: "progress"; operationId: string; progress: ProgressEvent }
  | { kind: "finished"; operationId: string; attempt: number; phase: OperationPhase; status: ReceiptStatus; provider: string }
  | { kind: "requeued"; operationId: string; attempt: number; delayMs: number }
  /**
   * This runner lost the attempt's lease (see LeaseLoss). "taken": another runner recovered it and
   * nothing of the attempt was written. "expired": the runner, alive, stopped the attempt and ended
   * it itself as lease recovery would (`phase`: where the operation went), unless another runner
   * recovered it first (then `phase` is null).
   */
  | { kind: "lease_lost"; operationId: string; attempt: number; loss: LeaseLoss; phase: OperationPhase | null }
  | { kind: "abandoned"; operationId: string; attempt: number }
  | { kind: "store_error"; operationId: string; message: string }
  /** The operation's row does not match its journal: it was not claimed, resumed or recovered (journal_tampered). */
  | { kind: "refused"; operationId: string; code: "journal_tampered"; reason: string };

export interface AttemptReport {
  operationId: string;
  attempt: number;
  /**
   * "lease_lost": the attempt's lease ran out before this runner renewed it: its outcome was discarded
   * (another runner recovered the operation), or the runner stopped it and ended it as lease recovery
   * would (phase and status then say how).
   * "abandoned": the executor did not return in time even after its signal was aborted; the runner
   * stopped renewing the lease and moved on, and lease recovery resolves the operation.
   */
  outcome: "finished" | "requeued" | "lease_lost" | "abandoned";
  phase: OperationPhase | null;
  status: ReceiptStatus | null;
}

export interface RunQueueOptions {
  /** Stop after this many attempts. Default: no limit. */
  max?: number;
  /** Stop claiming once this much time has passed (ms); a running attempt is finished first. Default: no limit. */
  budgetMs?: number;
  /** Stop claiming when aborted (SIGINT); a running attempt is finished first. */
  signal?: AbortSignal;
  /** Claim only this operation; others stay queued for their own runner. */
  onlyOperationId?: string;
  /**
   * Every attempt this run claims must be able to end by then (ms since the epoch, the process
   * clock): an operation whose longest possible attempt does not fit what is left is not claimed and
   * is listed in `unfit` (core/decideRequestFit). For a run inside a request the platform cuts
   * (ERRAND_REQUEST_LIMIT) and for a pass with a budget (runDuePass). Default: no deadline.
   */
  deadlineMs?: number;
}

/** A due operation a run with a deadline left queued: its longest possible attempt (ms) did not fit what was left. */
export interface UnfitOperation {
  operationId: string;
  worstCaseMs: number;
}

export interface RunQueueReport {
  recovered: RecoveredLease[];
  attempts: AttemptReport[];
  /** Operations left alone because their row does not match their journal (journal_tampered). */
  refused: IntegrityRefusal[];
  stoppedBecause: "drained" | "max" | "budget" | "aborted";
  /** With deadlineMs: the due operations left queued because they could not end in time (each once). */
  unfit?: UnfitOperation[];
}
