import { formatDuration } from "../config/formatDuration.js";
import { resolveRequestLimit } from "../config/requestLimit.js";
import { lookAtPage } from "../executor/lookAtPage.js";
import { createApp } from "../interfaces/http/createApp.js";
import type { TrustedProxies } from "../interfaces/http/clientAddress.js";
import { createForwardedHeaderWatch } from "../interfaces/http/forwardedHeaderWatch.js";
import type { AppDeps, ProviderCapability } from "../interfaces/http/httpDeps.js";
import { providerModeVariable, resolveProviderModes } from "../router/providerModes.js";
import type { HttpLogger } from "../interfaces/http/httpLogger.js";
import { createClientMetadataClients } from "../interfaces/http/oauth/clientMetadataClients.js";
import { createClientMetadataFetcher } from "../interfaces/http/oauth/clientMetadataFetch.js";
import { createErrandMetrics } from "../interfaces/http/observability/errandMetrics.js";
import type { ErrandMetrics } from "../interfaces/http/observability/errandMetrics.js";
import { checkReadiness } from "../interfaces/http/observability/readiness.js";
import { LoginHandoffs } from "../interfaces/http/owner/loginHandoffs.js";
import { createQueueDriver } from "../interfaces/http/queueDriver.js";
import { nodeClientAddressReader, nodePeerAddress } from "../interfaces/http/serveNode.js";
import { handlerClientAddressReader } from "../interfaces/http/handlerClientAddress.js";
import type { ServeSettings } from "../interfaces/http/serveSettings.js";
import { readHexKeyFile } from "../keys/loadKey.js";
import { JOURNAL_COMPACTION_INTERVAL_MS, startCompactionSchedule } from "../operations/compactionSchedule.js";
import type { CompactionSchedule } from "../operations/compactionSchedule.js";
import { CLOUD_PROVIDER_NAMES, createCloudProvider } from "../providers/createCloudProvider.js";
import { findChromium } from "../providers/local/findChromium.js";
import { NO_LOCAL_BROWSER } from "../providers/local/noLocalBrowser.js";
import { operatorNetworkPolicy } from "./operatorNetworkPolicy.js";
import { compactionReporter } from "./compactionReporter.js";
import type { Errand } from "./createErrand.js";
import { clearForwardedStatus, writeForwardedStatus } from "./forwardedHeaderStatus.js";

const PURGE_EVERY_MS = 60 * 60 * 1000;

/** What the serving entry decided before errand's HTTP side is put together. */
export interface HttpOptions {
  settings: ServeSettings;
  logger: HttpLogger;
  /** The owner's encoded password hash (ERRAND_OWNER_PASSWORD, else the store), read at every attempt. */
  ownerSecret: () => Promise<string | undefined>;
  trustedProxies: TrustedProxies;
  /** Exact extra OAuth redirect URIs (ERRAND_OAUTH_EXTRA_REDIRECTS). */
  extraRedirects: readonly string[];
  /** The operator's exact private destinations (flags and ERRAND_ALLOW_PRIVATE), for client metadata documents. */
  allowPrivate: readonly string[];
  version: string;
  commit: string;
  /** errand_provider_smoke: the operator's smoke task through this server's executor (the entry knows where its task file is). */
  smokeProvider?: AppDeps["smokeProvider"];
  /**
   * What outlives a request where errand is served. "process" (errand serve, the default): a
   * long-lived process with a worker pool, the hourly token purge, the compaction schedule and the
   * forwarded-header record in ERRAND_HOME. "request" (a fetch handler: Deno, Val Town): nothing
   * does, so attempts run within the request that asks for them, nothing is scheduled, nothing is
   * written outside the database, and the client's address comes from the handler's `env`
   * (`remoteAddress`); the interval entry purges and compacts.
   */
  hosting?: "process" | "request";
}

/** errand's HTTP side, running: the request handler, its metrics, and one stop for everything it started. */
export interface ServedHttp {
  /** Handles one request on the Node adapter (watching forwarded headers first). */
  fetch(request: Request, env: unknown): Response | Promise<Response>;
  metrics: ErrandMetrics;
  /** Stops the timers, the worker pool (running attempts get `graceMs`), the queue driver and the live logins. */
  close(graceMs: number): Promise<{ unfinished: number }>;
}

/**
 * The serving process's side of errand: the worker pool (it resumes whatever is queued and recovers
 * expired leases at once), the HTTP app over the operations service and the access tables, the owner
 * console's sites and live logins, metrics and readiness, the hourly token purge and the journal's
 * compaction schedule. The executor (and its browser) starts on the first task or look.
 */
export async function serveHttp(errand: Errand, env: NodeJS.ProcessEnv, options: HttpOptions): Promise<ServedHttp> {
  const { service, config } = errand;
  const { logger } = options;
  const longLived = (options.hosting ?? "process") === "process";
  const { access, hasher } = errand.accessTables();
  // No bearer-token route changes a site; only the owner console (behind the owner session) gives or revokes a grant.
  const siteRegistry = errand.siteRegistry();
  // The owner console's live login browsers: local Chromium under the site's network scope (ERRAND_LOGIN_TTL).
  const loginHandoffs = new LoginHandoffs(async (name, budgetMs) => (await (await errand.executor()).openLogin?.(name, budgetMs)) ?? null, config.loginTtlMs);
  // Where nothing outlives a request, the queue runs only what fits the platform's request limit (ERRAND_REQUEST_LIMIT).
  const queue = createQueueDriver({ service, logger, requestLimitMs: longLived ? null : resolveRequestLimit(env) });
  // A fetch handler starts no local browser, whatever Chromium the machine may have.
  const chromium = longLived ? findChromium(env) : null;
  // Read once, at start: a mode errand cannot use stops serve here, naming the variable, not at the first task.
  const modes = resolveProviderModes(env);
  const providers = (): ProviderCapability[] => [
    {
      name: "local",
      kind: "local",
      usable: chromium !== null,
      note: !longLived
        ? NO_LOCAL_BROWSER
        : chromium === null
          ? "No Chromium found: install Debian's chromium or set CHROME_PATH."
          : "Chromium on the errand host, behind the egress filter.",
    },
    ...CLOUD_PROVIDER_NAMES.map((name) => {
      const missing = createCloudProvider(name, { env }).missingConfiguration();
      const mode = modes[name];
      const how =
        mode === "program"
          ? ` Program mode (${providerModeVariable(name)}): each task program mode can hold goes to its runner as one program; the rest run over CDP.`
          : "";
      return missing === null
        ? {
            name,
            kind: "cloud" as const,
            usable: true,
            mode,
            note: `Credential set; "auto" tasks use it once 'errand provider smoke ${name}' has passed (see 'errand provider list').${how}`,
          }
        : { name, kind: "cloud" as const, usable: false, mode, note: missing };
    }),
  ];
  const metrics = createErrandMetrics(
    { status: () => service.status(), usage: () => errand.providerUsage() },
    { version: options.version, commit: options.commit },
  );
  const { keyFile } = errand;
  const readiness = () =>
    checkReadiness([
      { name: "store", check: async () => (await service.status(), null) },
      // A key given by the environment was checked when errand was put together; a key file can go missing later.
      ...(keyFile === null ? [] : [{ name: "key", check: () => Promise.resolve((readHexKeyFile(keyFile), null)) }]),
      {
        name: "browser",
        check: () =>
          Promise.resolve(
            (longLived && findChromium(env) !== null) || providers().some((p) => p.kind === "cloud" && p.usable)
              ? null
              : longLived
                ? "No Chromium found and no cloud provider configured: install Debian's chromium (or set CHROME_PATH), or set a provider credential."
                : `No cloud provider configured. ${NO_LOCAL_BROWSER}`,
          ),
      },
    ]);
  const workers = longLived ? await service.startWorkers({ onError: (error) => logger.error("The worker pool could not reach the store", error) }) : undefined;
  // Clients named by a metadata document URL: fetched under the operator's network policy, the one a task's URLs get.
  const network = operatorNetworkPolicy(env, options.allowPrivate);
  const clientMetadata = createClientMetadataClients({
    fetch: createClientMetadataFetcher({ resolver: network.resolver, allowPrivate: network.allowPrivate }),
    extraRedirects: [...options.extraRedirects],
  });
  const app = createApp({
    settings: options.settings,
    clientMetadata,
    service,
    access,
    hasher,
    ownerSecret: options.ownerSecret,
    queue,
    ...(workers === undefined ? {} : { workers }),
    providers,
    clientAddress: longLived ? nodeClientAddressReader(options.trustedProxies) : handlerClientAddressReader(options.trustedProxies),
    logger,
    version: options.version,
    commit: options.commit,
    metrics,
    readiness,
    ownerSites: {
      allow: (site, grant) => siteRegistry.allow(site, { ...grant, via: "console" }),
      revoke: (site) => siteRegistry.revoke(site),
    },
    budgets: () => errand.providerUsage(),
    sites: async () =>
      (await siteRegistry.list())
        .filter((site) => site.authentic)
        .map((site) => ({
          name: site.name,
          origins: site.origins,
          loggedIn: site.loggedIn,
          grants: site.grants.map((grant) => ({ id: grant.id, risk: grant.risk, secrets: grant.secrets, expiresAt: grant.expiresAt })),
        })),
    look: async (request) => lookAtPage((await errand.executor()).execute, request),
    loginHandoffs,
    ...(options.smokeProvider === undefined ? {} : { smokeProvider: options.smokeProvider }),
  });
  if (longLived) clearForwardedStatus(config.errandHome);
  const forwarded = longLived
    ? createForwardedHeaderWatch({ trusted: options.trustedProxies, logger, record: (seen) => writeForwardedStatus(config.errandHome, seen) })
    : undefined;

  let purge: NodeJS.Timeout | undefined;
  let compaction: CompactionSchedule | undefined;
  // Where nothing outlives a request, the interval entry purges and compacts instead.
  if (longLived) {
    try {
      await access.purgeExpired(Date.now());
      purge = setInterval(
        () => void access.purgeExpired(Date.now()).catch((error: unknown) => logger.error("Purging expired tokens failed", error)),
        PURGE_EVERY_MS,
      );
      purge.unref();
      const compactAfterMs = config.compactAfterMs;
      if (compactAfterMs === null) {
        logger.info('journal compaction is off (ERRAND_COMPACT_AFTER=off): finished operations stay until "errand journal compact"');
      } else {
        logger.info("journal compaction scheduled", { compactAfter: formatDuration(compactAfterMs), every: formatDuration(JOURNAL_COMPACTION_INTERVAL_MS) });
        compaction = startCompactionSchedule({
          compact: (compactOptions) => service.compactJournal(compactOptions),
          afterMs: compactAfterMs,
          report: compactionReporter(logger, metrics, compactAfterMs),
        });
      }
    } catch (error) {
      await stopAll(0);
      throw error;
    }
  }

  async function stopAll(graceMs: number): Promise<{ unfinished: number }> {
    if (purge !== undefined) clearInterval(purge);
    try {
      await compaction?.stop();
      return (await workers?.close(graceMs)) ?? { unfinished: 0 };
    } finally {
      await queue.close();
      await loginHandoffs.closeAll();
    }
  }

  return {
    fetch(request, handlerEnv) {
      forwarded?.observe(nodePeerAddress(handlerEnv), request.headers);
      return app.fetch(request, handlerEnv);
    },
    metrics,
    close: stopAll,
  };
}
