import type { RuntimeConfig } from "../../config/runtimeConfig.js";
import { resolveRuntimeConfig } from "../../config/runtimeConfig.js";
import type { ExecuteTask } from "../../executor/executeTaskTypes.js";
import { createJournalSealer } from "../../journal/createJournalSealer.js";
import { deriveSubkey } from "../../keys/loadKey.js";
import { createOperationsService } from "../../operations/createOperationsService.js";
import type { OperationsService } from "../../operations/serviceTypes.js";
import type { RunnerEvent } from "../../runner/runnerTypes.js";
import { openArtifactStoreAt, openOperationStore, storeLocationFor } from "../../app/openStores.js";
import type { Store } from "../../store/Store.js";
import type { CommandContext } from "./commandContext.js";
import type { OpenedSecrets } from "./openSecrets.js";
import { openSecrets } from "./openSecrets.js";
import { openFiles } from "./openFiles.js";
import type { OpenedFiles } from "./openFiles.js";
import { openSites } from "./openSites.js";
import type { OpenedSites } from "./openSites.js";
import { siteRefusal } from "../../sites/siteRefusal.js";
import type { SiteRefusal } from "../../sites/siteRefusal.js";
import type { LiveSiteGrant } from "../../sites/siteTypes.js";
import type { Task } from "../../task/taskTypes.js";
import type { HomeAccess } from "./masterKey.js";
import { homeForAccess } from "./masterKey.js";

export interface OpenedOperations {
  service: OperationsService;
  config: RuntimeConfig;
  close(): Promise<void>;
}

/**
 * Opens the operations service the way every CLI command does: configuration from the environment,
 * the master key under ERRAND_HOME/keys (the journal MACs use its "journal" subkey), and the store
 * (ERRAND_HOME/errand.db, or the PostgreSQL database ERRAND_DATABASE_URL names; app/openStores), with the artifact store beside it.
 * The CLI's executors come from executorFactory, whose provider router keeps each provider's
 * circuit breaker (the only breaker errand has).
 *
 * Approval summaries name the sites each declared secret is bound to; the secret registry is opened
 * for that only when a summary needs it.
 */
export function openOperations(
  ctx: CommandContext,
  options: { execute?: ExecuteTask; onRunnerEvent?: (event: RunnerEvent) => void; access?: HomeAccess } = {},
): OpenedOperations {
  const config = resolveRuntimeConfig(ctx.env);
  // Read commands never create a key, and no command creates one next to an existing database (masterKeyFor).
  const home = homeForAccess(config.errandHome, options.access ?? "write", storeLocationFor(config));
  const { key } = home;
  const sealer = createJournalSealer(deriveSubkey(key, "journal"));
  let store: Store;
  try {
    store = openOperationStore(home.location, { sealer });
  } catch (error) {
    home.dispose();
    throw error;
  }
  let artifactStore;
  try {
    artifactStore = openArtifactStoreAt(home.location, { sealer });
  } catch (error) {
    void store.close();
    home.dispose();
    throw error;
  }
  let secrets: OpenedSecrets | undefined;
  const secretSites = async (name: string): Promise<string[] | null> => {
    secrets ??= openSecrets(config, ctx.env, "read");
    return (await secrets.registry.lookup(name))?.sites ?? null;
  };
  let sites: OpenedSites | undefined;
  const siteRefusalFor = async (task: Task): Promise<SiteRefusal | null> => {
    if (task.site === undefined) return null;
    sites ??= openSites(config, ctx.env, "read");
    const registry = sites.registry;
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
  const siteGrants = async (site: string): Promise<LiveSiteGrant[]> => {
    sites ??= openSites(config, ctx.env, "read");
    return sites.registry.liveGrants(site);
  };
  let files: OpenedFiles | undefined;
  const fileKnown = async (name: string): Promise<boolean> => {
    files ??= openFiles(config, "read");
    return files.registry.has(name);
  };
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
    ...(options.execute === undefined ? {} : { execute: options.execute }),
    ...(options.onRunnerEvent === undefined ? {} : { onRunnerEvent: options.onRunnerEvent }),
  });
  return {
    service,
    config,
    async close() {
      await secrets?.close();
      await sites?.close();
      await files?.close();
      await artifactStore?.close();
      await store.close();
      home.dispose();
    },
  };
}
