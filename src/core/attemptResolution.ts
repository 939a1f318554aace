import type { Receipt } from "../receipt/receiptTypes.js";
import type { TerminalPhase } from "./operationPhase.js";

/** How an attempt ends: the operation finishes, or goes back to the queue to run again later. */
export type AttemptResolution =
  | { kind: "finish"; phase: TerminalPhase; receipt: Receipt; reason: string }
  | { kind: "requeue"; delayMs: number; attemptOutcome: string; errorCode: string | null; provider: string | null; reason: string };
