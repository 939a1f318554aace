import type { Context } from "hono";
import type { LookResult } from "../../executor/lookAtPage.js";
import type { CloudProviderName } from "../../providers/providerNames.js";
import type { SmokeOutcome } from "../../router/providerSmoke.js";
import type { UsageAgainstCap } from "../../router/gatherFacts.js";
import type { OperationsService } from "../../operations/serviceTypes.js";
import type { Requester } from "../../operations/requester.js";
import type { AccessStore } from "../../store/AccessStore.js";
import type { HttpLogger } from "./httpLogger.js";
import type { ResolvedClient } from "./oauth/clientMetadataClients.js";
import type { LoginHandoffs } from "./owner/loginHandoffs.js";
import type { ErrandMetrics } from "./observability/errandMetrics.js";
import type { ReadinessReport } from "./observability/readiness.js";
import type { QueueDriver } from "./queueDriver.js";
import type { WorkerPool } from "../../runner/workerPool.js";
import type { SecretHasher } from "./secretHasher.js";
import type { ServeSettings } from "./serveSettings.js";

/** What a provider can do, as far as this server knows (capabilities and status). */
export interface ProviderCapability {
  name: string;
  kind: "local" | "cloud";
  /** True when tasks can run on it from this server now. */
  usable: boolean;
  /** Cloud providers: how errand drives it (ERRAND_MODE_<PROVIDER>): a CDP session, or each task it can hold as one program. */
  mode?: "cdp" | "program";
  note: string;
}

/** Everything the HTTP app is built from; nothing is read from the environment inside it. */
export interface AppDeps {
  settings: ServeSettings;
  service: OperationsService;
  access: AccessStore;
  hasher: SecretHasher;
  /** The owner's encoded password hash (ERRAND_OWNER_PASSWORD, else the store), or undefined. */
  ownerSecret(): Promise<string | undefined>;
  queue: QueueDriver;
  /** The serving process's worker pool (errand serve starts one); absent, errand_run drains the queue through `queue`. */
  workers?: WorkerPool;
  providers(): ProviderCapability[];
  /** The client's address for rate limiting; the Node adapter reads the socket. */
  clientAddress(c: Context): string;
  logger: HttpLogger;
  version: string;
  /** The commit errand was built from ("unknown" from source or outside git), for errand_capabilities. */
  commit: string;
  /** /metrics (Prometheus text, API token); absent, /metrics answers 404. */
  metrics?: ErrandMetrics;
  /** /readyz; absent, errand counts as ready whenever it answers. */
  readiness?: () => Promise<ReadinessReport>;
  clock?: () => number;
  /** Clients whose client_id is a metadata document URL (fetched through the network preflight); absent, only registered clients exist. */
  clientMetadata?: (clientId: string) => Promise<ResolvedClient>;
  /** The owner's sites as errand_status and GET /v1/status list them (never a session); absent, none are listed. Nothing here can change a site. */
  sites?: () => Promise<SiteListing[]>;
  /** The owner console's live login browsers (/owner/sites/NAME/login); absent, the page answers 404. */
  loginHandoffs?: LoginHandoffs;
  /**
   * The owner's control of standing grants from the console, reached only behind the owner session
   * (no bearer token reaches it: no REST route or MCP tool calls it). Absent: the console offers no grant.
   */
  ownerSites?: OwnerSites;
  /** Each cloud provider's usage against the budget cap the router enforces, for errand_status and GET /v1/status; absent, none are listed. */
  budgets?: () => Promise<UsageAgainstCap[]>;
  /** errand_look and POST /v1/look: outline a page under the read_only policy; absent, they answer configuration_error. */
  look?: (request: unknown) => Promise<LookResult>;
  /**
   * errand_provider_smoke and POST /v1/providers/NAME/smoke: the operator's smoke task on that
   * provider (src/router/providerSmoke.ts), or what configuration it lacks; absent, they answer configuration_error.
   */
  smokeProvider?: (name: CloudProviderName) => Promise<{ ok: true; outcome: SmokeOutcome } | { ok: false; missing: string }>;
}

/**
 * A site as the assistant and API tokens see it: its name, the origins its session is used on,
 * whether it is logged in, and the owner's live standing grants on it (read-only: only the owner's
 * CLI and console give or revoke one).
 */
export interface SiteListing {
  name: string;
  origins: string[];
  loggedIn: boolean;
  grants: { id: string; risk: string; secrets: string[]; expiresAt: string }[];
}

/** A live standing grant as the owner console shows it. */
export interface OwnerSiteGrant {
  id: string;
  risk: string;
  secrets: string[];
  expiresAt: string;
}

/** What the owner console may do with standing grants: give one on a site, revoke a site's grants (its listing comes from `sites`). */
export interface OwnerSites {
  allow(site: string, grant: { risk: "reversible_write" | "consequential"; secrets: string[]; durationMs: number }): Promise<OwnerSiteGrant>;
  revoke(site: string): Promise<string[]>;
}

/** Who is calling, once a bearer token was verified. */
export interface Principal {
  /** "oauth:<clientId>" or "api:<tokenId>": what the journal records. */
  actor: string;
  kind: "oauth" | "api";
  clientId?: string;
  familyId?: string;
  tokenId?: string;
  scopes: string[];
  /** Whose operations it sees and controls: its grant's (token family's) or its API token's own, or all for an operator token. */
  requester: Requester;
}

export interface AppEnv {
  Variables: { principal: Principal };
}
