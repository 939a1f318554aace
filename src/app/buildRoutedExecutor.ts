import { hostname } from "node:os";
import type { OwnerFileRegistry } from "../files/createOwnerFiles.js";
import type { SecretRegistry } from "../secrets/createSecretRegistry.js";
import type { SiteRegistry } from "../sites/createSiteRegistry.js";
import { randomBytes } from "node:crypto";
import type { RuntimeConfig } from "../config/runtimeConfig.js";
import { admitTask } from "../executor/admitTask.js";
import { createExecutor } from "../executor/createExecutor.js";
import { createProgramExecutor } from "../executor/createProgramExecutor.js";
import { withProgramMode } from "../router/withProgramMode.js";
import { openLoginHandoff } from "../executor/loginHandoff.js";
import type { LoginHandoff } from "../executor/loginHandoff.js";
import type { ExecuteTask } from "../executor/executeTaskTypes.js";
import type { ProviderEvent } from "../providers/cloudProviderOptions.js";
import { CLOUD_PROVIDER_NAMES, createCloudProvider, isCloudProviderName } from "../providers/createCloudProvider.js";
import type { BrowserProvider, SessionScope } from "../providers/providerTypes.js";
import { withCappedDocuments } from "../providers/withCappedDocuments.js";
import { createRouter } from "../router/createRouter.js";
import { resolveRoutingConfig } from "../router/routingConfig.js";
import type { RoutableProvider, RoutingConfig } from "../router/routingConfig.js";
import { breakerPolicy } from "../router/circuitBreaker.js";
import type { ProviderStore } from "../store/ProviderStore.js";
import { createGuardedLocalProvider, DEFAULT_STEP_TIMEOUT_MS, startSessionProxy } from "./buildExecutor.js";
import { operatorNetworkPolicy } from "./operatorNetworkPolicy.js";
import { openProviderStore } from "./openProviderStore.js";
import { openSecrets } from "./openSecrets.js";
import { openFiles } from "./openFiles.js";
import { openSites } from "./openSites.js";
import { sessionValues } from "../sites/sessionScope.js";
import { noLocalBrowser } from "../providers/local/noLocalBrowser.js";
import type { SiteDefinition, SiteSessions } from "../sites/siteTypes.js";

/** The cloud adapters by name, reading credentials and base URLs from env; none talks to a provider until a session opens. */
export function createCloudProviders(
  env: NodeJS.ProcessEnv,
  onEvent?: (event: ProviderEvent) => void,
): Record<Exclude<RoutableProvider, "local">, BrowserProvider> {
  const entries = CLOUD_PROVIDER_NAMES.map((name) => [name, createCloudProvider(name, { env, ...(onEvent === undefined ? {} : { onEvent }) })] as const);
  return Object.fromEntries(entries) as Record<Exclude<RoutableProvider, "local">, BrowserProvider>;
}

export interface RoutedExecutor {
  execute: ExecuteTask;
  store: ProviderStore;
  routing: RoutingConfig;
  providers: Record<RoutableProvider, BrowserProvider>;
  /** The owner console's live login: local Chromium under the site's network scope, saving through the same site port tasks use. */
  openLogin(name: string, budgetMs: number): Promise<LoginHandoff | null>;
  shutdown(): Promise<void>;
}

export interface RoutedExecutorOptions {
  env: NodeJS.ProcessEnv;
  allowPrivate: readonly string[];
  config: RuntimeConfig;
  /** Provider session events (created, released, release failed), for the operator's stderr. */
  onProviderEvent?: (event: ProviderEvent) => void;
  /** Notices for the operator (local Chromium without its sandbox as root), once, at first launch. */
  onNotice?: (message: string) => void;
  /** A long-lived process: keep a spare local context and page ready between tasks (LocalProviderOptions.spareProxy). */
  keepSpare?: boolean;
  /** Each secret or session value an attempt reveals, so the process can scrub it from everything it prints. */
  onRevealed?: (value: string) => void;
  /** errand's own stores and registries (the composition root's); absent, they are opened from `config` and closed at shutdown. */
  stores?: ExecutorStores;
  /** False on a host with no local browser (a fetch handler): only cloud providers run. Default true. */
  localBrowser?: boolean;
}

/** What the executor reads and writes besides the browser: the router's provider tables and the owner's registries. */
export interface ExecutorStores {
  provider: ProviderStore;
  secrets: SecretRegistry;
  sites: SiteRegistry;
  files: OwnerFileRegistry;
}

/** The stores opened from the configuration, for a caller that holds none (a test, `errand provider smoke`); closed at shutdown. */
function openExecutorStores(config: RuntimeConfig, env: NodeJS.ProcessEnv): { stores: ExecutorStores; close(): Promise<void> } {
  const provider = openProviderStore(config);
  const secrets = openSecrets(config, env);
  const files = openFiles(config);
  const sites = openSites(config, env);
  return {
    stores: { provider, secrets: secrets.registry, sites: sites.registry, files: files.registry },
    async close() {
      await provider.close();
      await secrets.close();
      await sites.close();
      await files.close();
    },
  };
}

/**
 * The executor `errand runner`, `errand run`, `errand serve` and `errand provider smoke` use: the
 * provider router over the local provider (Chromium behind the egress filter) and the four cloud
 * adapters, all under the operator's network policy, with slots, budgets, back-offs, activation
 * and breakers in ERRAND_HOME/errand.db. With no cloud credential set, every task runs locally,
 * exactly as before the router existed.
 */
export function buildRoutedExecutor(options: RoutedExecutorOptions): RoutedExecutor {
  const { env, config } = options;
  const routing = resolveRoutingConfig(env);
  const policy = operatorNetworkPolicy(env, options.allowPrivate);
  const local =
    options.localBrowser === false
      ? noLocalBrowser()
      : createGuardedLocalProvider(env, policy, {
          maxDocumentBytes: config.maxDocumentBytes,
          maxDownloadBytes: config.downloadMaxBytes,
          keepSpare: options.keepSpare === true,
          ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
        });
  // Cloud sessions get errand's capped document fetcher behind an egress proxy for the task, like local ones.
  const capped = { proxyForSession: (scope: SessionScope) => startSessionProxy(policy, scope), maxDocumentBytes: config.maxDocumentBytes };
  const cloud = Object.fromEntries(
    Object.entries(createCloudProviders(env, options.onProviderEvent)).map(([name, provider]) => [name, withCappedDocuments(provider, capped)]),
  ) as Record<Exclude<RoutableProvider, "local">, BrowserProvider>;
  const providers: Record<RoutableProvider, BrowserProvider> = { local, ...cloud };
  const own = options.stores === undefined ? openExecutorStores(config, env) : undefined;
  const stores = options.stores ?? (own as { stores: ExecutorStores }).stores;
  const store = stores.provider;
  const revealed = options.onRevealed ?? (() => undefined);
  // Every value an attempt reveals is also scrubbed from everything this process prints (progress, logs, errors).
  const vault = {
    lookup: (name: string) => stores.secrets.lookup(name),
    reveal: async (name: string) => {
      const secret = await stores.secrets.reveal(name);
      // A TOTP code is scrubbed by its attempt's redactor; a short code valid for seconds is not added to this process-wide filter for good.
      if (secret.value !== undefined) revealed(secret.value);
      return secret;
    },
  };
  // A site's session values, loaded or saved back, are scrubbed from everything this process prints too.
  const sites: SiteSessions = {
    lookup: (name) => stores.sites.lookup(name),
    openSession: async (site) => {
      const session = await stores.sites.openSession(site);
      for (const value of session === null ? [] : sessionValues(session)) revealed(value);
      return session;
    },
    saveSession: (site, session, state) => {
      for (const value of session === null ? [] : sessionValues(session)) revealed(value);
      return stores.sites.saveSession(site, session, state);
    },
    loginPageUrl: (name) => stores.sites.loginPageUrl(name),
  };
  const execute = createRouter({
    store,
    config: routing,
    providers,
    admit: (task) => admitTask(task, { guard: policy.guard, secrets: vault, sites }),
    executorFor: (provider) => {
      // What both modes' executors share: the provider, the admission's ports and the default timeouts.
      const common = {
        provider,
        guard: policy.guard,
        secrets: vault,
        sites,
        defaultTaskTimeoutMs: config.browserTimeoutMs,
        defaultStepTimeoutMs: DEFAULT_STEP_TIMEOUT_MS,
      };
      return withProgramMode({
        mode: isCloudProviderName(provider.name) ? routing.modes[provider.name] : "cdp",
        provider,
        cdp: createExecutor({ ...common, downloadMaxBytes: config.downloadMaxBytes, files: stores.files }),
        program: provider.runProgram === undefined ? null : createProgramExecutor(common),
      });
    },
    defaultTaskTimeoutMs: config.browserTimeoutMs,
    breaker: breakerPolicy(config),
    holder: `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`,
  });
  return {
    execute,
    store,
    routing,
    providers,
    async openLogin(name, budgetMs) {
      const site: SiteDefinition | null = await sites.lookup(name);
      return site === null ? null : openLoginHandoff({ provider: local, guard: policy.guard, site, sites, budgetMs });
    },
    async shutdown() {
      try {
        await local.shutdown();
      } finally {
        await own?.close();
      }
    },
  };
}
