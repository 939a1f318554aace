import type { RuntimeConfig } from "../config/runtimeConfig.js";
import type { ArtifactStore } from "../store/ArtifactStore.js";
import type { SecretRegistry } from "../secrets/createSecretRegistry.js";
import type { OwnerFileRegistry } from "../files/createOwnerFiles.js";
import { resolveRuntimeConfig } from "../config/runtimeConfig.js";
import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import { createJournalSealer } from "../journal/createJournalSealer.js";
import { deriveSubkey, masterKeyPath } from "../keys/loadKey.js";
import { usageAgainstCaps } from "../router/gatherFacts.js";
import type { UsageAgainstCap } from "../router/gatherFacts.js";
import { resolveRoutingConfig } from "../router/routingConfig.js";
import { createOperationsService } from "../operations/createOperationsService.js";
import type { OperationsService } from "../operations/serviceTypes.js";
import type { RunnerEvent } from "../runner/runnerTypes.js";
import { siteRefusal } from "../sites/siteRefusal.js";
import type { SiteRefusal } from "../sites/siteRefusal.js";
import type { SiteRegistry } from "../sites/createSiteRegistry.js";
import type { LiveSiteGrant } from "../sites/siteTypes.js";
import type { Store } from "../store/Store.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import { requestDigest } from "../task/requestDigest.js";
import type { Task } from "../task/taskTypes.js";
import type { HomeAccess } from "./masterKey.js";
import { homeForAccess } from "./masterKey.js";
import { accessOn, filesOn, secretsOn, sitesOn } from "./ownerRegistries.js";
import type { OpenedAccess, OpenedFiles, OpenedSecrets, OpenedSites } from "./ownerRegistries.js";
import { storeLocationFor } from "./storeLocation.js";
import type { StoreLocation } from "./storeLocation.js";
import { openStorePorts } from "./storePorts.js";
import type { StorePorts } from "./storePorts.js";
import type { HttpOptions, ServedHttp } from "./serveHttp.js";
import type { ExecutorSettings, ExecutorSource, WiredExecutor } from "./wiredExecutor.js";
import { wiredExecutor } from "./wiredExecutor.js";

/** What an entry (a CLI command, serve, a bench, a test harness) tells errand when it puts it together. */
export interface ErrandOptions {
  /** ERRAND_* settings, provider credentials and --from-env secrets. */
  env: NodeJS.ProcessEnv;
  /** What the entry does with ERRAND_HOME (masterKey.ts): "write" (the default) may start a new home. */
  access?: HomeAccess;
  /** Where the executor comes from: errand's own by default; a fake in tests and benches. */
  executor?: ExecutorSource;
  /** How the executor is built: the operator's private allowances, a long-lived process, its notices. */
  executorSettings?: Omit<ExecutorSettings, "env" | "browserTimeoutMs">;
  /** Wraps every attempt the runner starts: a progress reporter, serve's metrics and log line. */
  aroundAttempt?: (execute: ExecuteTask) => ExecuteTask;
  /** The runner's events (claimed, finished, requeued, recovered ...), for the entry to print or count. */
  onRunnerEvent?: (event: RunnerEvent) => void;
  /** How this process names itself in leases and events; host, pid and a random suffix by default. */
  runnerId?: string;
  /** Settings that win over the environment's (a test's zero retry delay, a bench's lease). */
  config?: Partial<RuntimeConfig>;
  /** Where the stores are, instead of ERRAND_HOME/errand.db or ERRAND_DATABASE_URL (a test's own PostgreSQL schema). */
  location?: StoreLocation;
  /** The time the stores read; the process clock (or PostgreSQL's now()) by default. Tests move it by hand. */
  clock?: () => number;
  /**
   * The master key, when the entry holds it: a host without a lasting file system gives it in an
   * environment variable (keys/masterKeyFromEnv.ts). Then no key file is read or written. Absent,
   * the key is ERRAND_HOME/keys/master.key under masterKey.ts's rules.
   */
  masterKey?: Buffer;
}

/** errand put together: its settings, the operations service, the executor and the owner's registries, and one close for all of it. */
export interface Errand {
  config: RuntimeConfig;
  /** Where the stores are: the SQLite file, or the PostgreSQL database. */
  location: StoreLocation;
  service: OperationsService;
  /** The operations store itself, for entries that read below the service (a test's assertions, a bench's counts). */
  store: Store;
  /** Screenshots and downloads kept with receipts; absent where the backend keeps none. */
  artifactStore: ArtifactStore | undefined;
  /** The executor attempts run on, built on the first call (the browser libraries load only then). */
  executor: () => Promise<WiredExecutor>;
  /** The access tables (API tokens, OAuth grants, the owner password) and their hasher, opened on the first call. */
  accessTables(): OpenedAccess;
  /** The owner's site registry, opened on the first call; the one admission and the owner console both read. */
  siteRegistry(): SiteRegistry;
  /** The owner's declared secrets, opened on the first call; the one admission reads a secret's sites from. */
  secretRegistry(): SecretRegistry;
  /** The owner's upload files, opened on the first call; the one admission checks a named file in. */
  fileRegistry(): OwnerFileRegistry;
  /** The master key's file, or null when the entry gave the key (ERRAND_MASTER_KEY) and no file is read. */
  keyFile: string | null;
  /** Each cloud provider's usage against its budget cap, from this errand's provider store. */
  providerUsage(): Promise<UsageAgainstCap[]>;
  /** A task's request digest under this home's key (the key itself never leaves errand). */
  requestDigest(task: Task): string;
  /**
   * errand's HTTP side, started: the worker pool, the app (REST, MCP, OAuth, the owner console),
   * metrics, readiness and the schedules; close it before errand itself. Loaded on demand: only a
   * serving process needs the HTTP stack.
   */
  http(options: HttpOptions): Promise<ServedHttp>;
  /** Releases everything opened: the executor (its browser), the registries and the stores. */
  close(): Promise<void>;
}

/**
 * errand's composition root: configuration from the environment, the master key (under ERRAND_HOME,
 * or the one the entry gives), the stores (storeLocation says where: SQLite, PostgreSQL or libSQL;
 * storePorts opens them), the owner's secret, site and file registries, the operations service and
 * the executor. Every entry (each CLI command, `serve`, the Deno and Val Town fetch handler, the
 * benches and the test harnesses) puts errand together here and nowhere else. Async: opening a
 * store may load its backend's code and, on libSQL, create the schema.
 *
 * The registries are opened only when something needs them (an approval summary naming a secret's
 * sites, a site task's admission), and the executor only when an attempt runs, so a command that
 * only reads stays fast.
 */
export async function createErrand(options: ErrandOptions): Promise<Errand> {
  const { env } = options;
  const config = resolveRuntimeConfig(env, options.config);
  // Read commands never create a key, and no command creates one next to an existing database (masterKeyFor).
  const where = options.location ?? storeLocationFor(config, env);
  const home =
    options.masterKey === undefined
      ? homeForAccess(config.errandHome, options.access ?? "write", where)
      : { location: where, key: options.masterKey, dispose: () => undefined };
  const { key, location } = home;
  const sealer = createJournalSealer(deriveSubkey(key, "journal"));
  let ports: StorePorts;
  try {
    ports = await openStorePorts(location, { sealer, ...(options.clock === undefined ? {} : { clock: options.clock }) });
  } catch (error) {
    home.dispose();
    throw error;
  }
  const store = ports.operations;
  const artifactStore = ports.artifacts;

  let secrets: OpenedSecrets | undefined;
  let sites: OpenedSites | undefined;
  let files: OpenedFiles | undefined;
  let access: OpenedAccess | undefined;
  // The registries live in the stores just opened, under the key just read: never another location or key.
  const secretRegistry = (): SecretRegistry => (secrets ??= secretsOn(ports.secrets(), key, env, config.errandHome)).registry;
  const secretSites = async (name: string): Promise<string[] | null> => (await secretRegistry().lookup(name))?.sites ?? null;
  const siteRegistry = (): SiteRegistry => (sites ??= sitesOn(ports.sites(), key, env)).registry;
  const fileRegistry = (): OwnerFileRegistry => (files ??= filesOn(ports.files(), key)).registry;
  const siteRefusalFor = async (task: Task): Promise<SiteRefusal | null> => {
    if (task.site === undefined) return null;
    const registry = siteRegistry();
    let definition;
    try {
      definition = await registry.lookup(task.site);
    } catch {
      // A definition that fails its MAC is refused at admission, with its own code and words.
      return null;
    }
    const loggedIn = definition === null ? false : ((await registry.show(task.site))?.loggedIn ?? false);
    return siteRefusal(task, definition, loggedIn, registry.loginPageUrl(task.site));
  };
  const siteGrants = (site: string): Promise<LiveSiteGrant[]> => siteRegistry().liveGrants(site);
  const fileKnown = (name: string): Promise<boolean> => fileRegistry().has(name);

  let providerStore: ProviderStore | undefined;
  let built: WiredExecutor | undefined;
  let building: Promise<WiredExecutor> | undefined;
  const executor = async (): Promise<WiredExecutor> => {
    building ??= Promise.resolve(
      (options.executor ?? wiredExecutor)({
        allowPrivate: [],
        ...options.executorSettings,
        env,
        browserTimeoutMs: config.browserTimeoutMs,
        // The executor works on errand's own stores, at this location under this key: never ones it would locate again.
        stores: { provider: (providerStore ??= ports.provider()), secrets: secretRegistry(), sites: siteRegistry(), files: fileRegistry() },
      }),
    );
    built = await building;
    return built;
  };
  const runAttempt: ExecuteTask = async (task, context) => (built ?? (await executor())).execute(task, context);
  const service = createOperationsService({
    secretSites,
    fileKnown,
    siteRefusal: siteRefusalFor,
    siteGrants,
    store,
    ...(artifactStore === undefined ? {} : { artifactStore }),
    sealer,
    digestKey: key,
    config,
    execute: options.aroundAttempt === undefined ? runAttempt : options.aroundAttempt(runAttempt),
    ...(options.onRunnerEvent === undefined ? {} : { onRunnerEvent: options.onRunnerEvent }),
    ...(options.runnerId === undefined ? {} : { runnerId: options.runnerId }),
  });

  const errand: Errand = {
    config,
    location,
    service,
    store,
    artifactStore,
    executor,
    accessTables: () => (access ??= accessOn(ports.access(), key)),
    siteRegistry,
    secretRegistry,
    fileRegistry,
    keyFile: options.masterKey === undefined ? masterKeyPath(config.errandHome) : null,
    providerUsage: () => usageAgainstCaps((providerStore ??= ports.provider()), resolveRoutingConfig(env)),
    requestDigest: (task) => requestDigest(key, task),
    async http(httpOptions) {
      const { serveHttp } = await import("./serveHttp.js");
      return serveHttp(errand, env, httpOptions);
    },
    async close() {
      try {
        await (built ?? (await building?.catch(() => undefined)))?.shutdown();
      } finally {
        await access?.access.close();
        await secrets?.close();
        await sites?.close();
        await files?.close();
        await providerStore?.close();
        await artifactStore?.close();
        await store.close();
        await ports.close();
        home.dispose();
      }
    },
  };
  return errand;
}
