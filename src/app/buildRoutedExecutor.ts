import { hostname } from "node:os";
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
import { createGuardedLocalProvider, DEFAULT_STEP_TIMEOUT_MS, operatorNetworkPolicy, startSessionProxy } from "./buildExecutor.js";
import { openProviderStore } from "./openProviderStore.js";
import { openSecrets } from "./openSecrets.js";
import { openFiles } from "./openFiles.js";
import { openSites } from "./openSites.js";
import { sessionValues } from "../sites/sessionScope.js";
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
  const local = createGuardedLocalProvider(env, policy, {
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
  const store = openProviderStore(config);
  const secrets = openSecrets(config, env);
  const revealed = options.onRevealed ?? (() => undefined);
  // Every value an attempt reveals is also scrubbed from everything this process prints (progress, logs, errors).
  const vault = {
    lookup: (name: string) => secrets.registry.lookup(name),
    reveal: async (name: string) => {
      const secret = await secrets.registry.reveal(name);
      // A TOTP code is scrubbed by its attempt's redactor; a short code valid for seconds is not added to this process-wide filter for good.
      if (secret.value !== undefined) revealed(secret.value);
      return secret;
    },
  };
  const files = openFiles(config);
  const opened = openSites(config, env);
  // A site's session values, loaded or saved back, are scrubbed from everything this process prints too.
  const sites: SiteSessions = {
    lookup: (name) => opened.registry.lookup(name),
    openSession: async (site) => {
      const session = await opened.registry.openSession(site);
      for (const value of session === null ? [] : sessionValues(session)) revealed(value);
      return session;
    },
    saveSession: (site, session, state) => {
      for (const value of session === null ? [] : sessionValues(session)) revealed(value);
      return opened.registry.saveSession(site, session, state);
    },
    loginPageUrl: (name) => opened.registry.loginPageUrl(name),
  };
  const execute = createRouter({
    store,
    config: routing,
    providers,
    admit: (task) => admitTask(task, { guard: policy.guard, secrets: vault, sites }),
    executorFor: (provider) =>
      withProgramMode({
        mode: isCloudProviderName(provider.name) ? routing.modes[provider.name] : "cdp",
        provider,
        cdp: createExecutor({
          provider,
          guard: policy.guard,
          secrets: vault,
          sites,
          defaultTaskTimeoutMs: config.browserTimeoutMs,
          defaultStepTimeoutMs: DEFAULT_STEP_TIMEOUT_MS,
          downloadMaxBytes: config.downloadMaxBytes,
          files: files.registry,
        }),
        program:
          provider.runProgram === undefined
            ? null
            : createProgramExecutor({
                provider,
                guard: policy.guard,
                secrets: vault,
                sites,
                defaultTaskTimeoutMs: config.browserTimeoutMs,
                defaultStepTimeoutMs: DEFAULT_STEP_TIMEOUT_MS,
              }),
      }),
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
        await store.close();
        await secrets.close();
        await opened.close();
        await files.close();
      }
    },
  };
}
