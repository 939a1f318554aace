import type { SiteRefusal } from "../sites/siteRefusal.js";
import type { LiveSiteGrant } from "../sites/siteTypes.js";
import type { Task } from "../task/taskTypes.js";
import type { RuntimeConfig } from "../config/runtimeConfig.js";
import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { RunnerEvent } from "../runner/runnerTypes.js";
import type { WorkerPool } from "../runner/workerPool.js";
import type { OperationSignals } from "./operationSignals.js";
import type { HeldResults } from "./heldResults.js";
import type { ArtifactKeeping } from "./artifactKeeping.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { Store } from "../store/Store.js";

/** What the service is built from. Everything is injected; nothing is read from the environment here. */
export interface OperationsServiceOptions {
  store: Store;
  /** Journal MAC key holder (deriveSubkey(master, "journal")). */
  sealer: JournalSealer;
  /** Request-digest key (the master key). */
  digestKey: Uint8Array;
  config: RuntimeConfig;
  /** The executor runQueue uses; absent for processes that only submit and observe. */
  execute?: ExecuteTask;
  runnerId?: string;
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** Where artifacts (evidence screenshots) are kept; without it none are kept or served. */
  artifactStore?: ArtifactStore;
  /**
   * The sites an owner-declared secret is bound to (null: not declared), for approval summaries and
   * for submit's refusal of a secret the task cannot type. Without it submit leaves those refusals
   * to the admission step, before any browser opens.
   */
  secretSites?: (name: string) => Promise<string[] | null>;
  /** Why a task naming a site cannot start (src/sites/siteRefusal), checked at submit before anything is created or the owner asked; absent: not checked here. */
  siteRefusal?: (task: Task) => Promise<SiteRefusal | null>;
  /** The owner's live standing grants on a site (src/sites liveGrants), a fact of the owner-approval decision; absent: no grant applies. */
  siteGrants?: (site: string) => Promise<LiveSiteGrant[]>;
  /** Whether the owner added a file of that name for uploads, checked at submit; absent: the step finds out when it runs. */
  fileKnown?: (name: string) => Promise<boolean>;
}

/** Shared by the service's methods. */
export interface ServiceContext extends OperationsServiceOptions {
  /** Extracted values and provider session ids of finished operations, sealed in the store for ERRAND_RESULT_TTL. */
  held: HeldResults;
  /** Artifacts of finished operations, sealed in the artifact store (when there is one). */
  artifacts?: ArtifactKeeping;
  /** The journal's id once journalIdentity has checked it. */
  journalId?: string;
  /** Fired when this process stores an operation's receipt (or cancels or denies it): waiting collects answer at once. */
  signals: OperationSignals;
  /** The worker pool this process runs, once startWorkers was called; submit and approval wake it. */
  workers?: WorkerPool;
}
