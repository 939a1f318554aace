import { emptyNetworkEvidence } from "../receipt/emptyNetworkEvidence.js";
import type { ArtifactRecord } from "../receipt/artifactTypes.js";
import type { FailureContext } from "../receipt/outlineTypes.js";
import type { Check, DownloadRefusal, MutationBoundary, NetworkEvidence, ReceiptError, StepRecord } from "../receipt/receiptTypes.js";

/** At most this many blocked requests are listed in a receipt; all are counted. */
export const MAX_LISTED_BLOCKS = 20;

/**
 * A stopped request as the guards saw it, in plain strings: buildReceipt scrubs each string of
 * secrets and then wraps the page-chosen ones (url, reason) as untrusted, so a cap never cuts a
 * secret in half before the scrub.
 */
export interface BlockedFacts {
  url: string;
  method: string;
  resourceType: string;
  code: string;
  reason: string;
}

/** The attempt's network evidence while it runs: the receipt's, with the blocked list still plain. */
export type NetworkFacts = Omit<NetworkEvidence, "blocked"> & { blocked: BlockedFacts[] };

/** Everything one attempt learns; guards and steps write here, the receipt builder reads it. */
export class AttemptState {
  readonly network: NetworkFacts = { ...emptyNetworkEvidence(), blocked: [] };
  readonly checks: Check[] = [];
  readonly steps: StepRecord[] = [];
  readonly outputs: Record<string, string> = {};
  mutationBoundary: MutationBoundary = "not_crossed";
  /** The main frame's URL after its latest navigation (kept even if the page is closed later). */
  lastUrl: string | null = null;
  error: ReceiptError | null = null;
  /** HTTP status of the target's main document, once it answered (the retry rule reads it). */
  targetStatus: number | null = null;
  /** The page at the failed step, for the assistant to correct its task. */
  failure: FailureContext | null = null;
  /** Artifacts taken (evidence.screenshots), without their bytes. */
  readonly artifacts: ArtifactRecord[] = [];
  /** Downloads errand refused (off the task's hosts, over ERRAND_DOWNLOAD_MAX_BYTES, failed), the first few; all are counted in network.downloadsRefused. */
  readonly downloadRefusals: DownloadRefusal[] = [];
  /** A refused download the task fails for, when nothing else failed first. */
  downloadFailure: ReceiptError | null = null;
  /** The last step that acted (a mutating step or a goto; null before the first): what a download that starts is attributed to. */
  runningStep: number | null = null;
  /** When the last step that clicked or pressed a key on a download link ended: its download is announced a moment later, with no navigation to watch. */
  pressedAtMs: number | null = null;
  /** The step running now and what it is doing, for a task errand has to stop at its budget. */
  stepUnderway: { phase: "navigation" | "waiting" | "acting"; began: number } | null = null;
  /** Why an artifact the task asked for is missing. */
  artifactsOmitted: string | null = null;
  /** Set by a guard when the main frame tried to go somewhere it may not; the running step fails with it. */
  /** The first navigation the guards stopped; detail holds the page-chosen address (wrapped when it reaches the receipt). */
  navigationViolation: { code: string; message: string; detail: string } | null = null;

  /** Counts a stopped request by who stopped it (egress: the local provider's filtering proxy) and lists the first few. */
  recordBlocked(entry: BlockedFacts, kind: "policy" | "method" | "navigation" | "secret" | "egress"): void {
    if (kind === "method") this.network.nonGetAborted += 1;
    else if (kind === "egress") this.network.egressBlocked += 1;
    else if (kind === "secret") this.network.secretEgressBlocked += 1;
    else this.network.blockedRequests += 1;
    if (kind === "navigation") this.network.navigationsBlocked += 1;
    if (this.network.blocked.length < MAX_LISTED_BLOCKS) this.network.blocked.push(entry);
  }
}
