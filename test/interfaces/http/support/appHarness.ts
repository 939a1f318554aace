// Builds errand's HTTP app over a real temporary store and a fake executor, in process or on a
// real loopback socket. Not a test file.
import type { SiteRegistry } from "../../../../src/sites/createSiteRegistry.js";
import type { ExecuteTask } from "../../../../src/executor/executeTaskTypes.js";
import { lookAtPage } from "../../../../src/executor/lookAtPage.js";
import { createApp } from "../../../../src/interfaces/http/createApp.js";
import type { AppDeps, ProviderCapability } from "../../../../src/interfaces/http/httpDeps.js";
import type { HttpLogger } from "../../../../src/interfaces/http/httpLogger.js";
import { createErrandMetrics } from "../../../../src/interfaces/http/observability/errandMetrics.js";
import type { ReadinessReport } from "../../../../src/interfaces/http/observability/readiness.js";
import { hashOwnerPassword } from "../../../../src/interfaces/http/oauth/ownerPassword.js";
import { createQueueDriver } from "../../../../src/interfaces/http/queueDriver.js";
import type { QueueDriver } from "../../../../src/interfaces/http/queueDriver.js";
import type { SecretHasher } from "../../../../src/interfaces/http/secretHasher.js";
import { parseTrustedProxies } from "../../../../src/interfaces/http/clientAddress.js";
import { listenNode, nodeClientAddressReader, nodePeerAddress } from "../../../../src/interfaces/http/serveNode.js";
import { createForwardedHeaderWatch } from "../../../../src/interfaces/http/forwardedHeaderWatch.js";
import type { UntrustedForwarding } from "../../../../src/interfaces/http/forwardedHeaderWatch.js";
import type { ServeSettings } from "../../../../src/interfaces/http/serveSettings.js";
import { resolveServeSettings } from "../../../../src/interfaces/http/serveSettings.js";
import type { AccessStore } from "../../../../src/store/AccessStore.js";
import { createFakeExecutor } from "../../../operations/support/fakeExecutor.js";
import type { Harness } from "../../../operations/support/harness.js";
import { openHarness } from "../../../operations/support/harness.js";

export const OWNER_PASSWORD = "correct horse battery staple";
export const CALLBACK = "http://127.0.0.1:47999/callback";

let ownerHash: Promise<string> | undefined;

export interface LoggedLine {
  level: string;
  message: string;
  fields?: Record<string, string | number | boolean | null> | undefined;
}

export interface AppHarness {
  ops: Harness;
  access: AccessStore;
  hasher: SecretHasher;
  deps: AppDeps;
  queue: QueueDriver;
  logs: LoggedLine[];
  app: ReturnType<typeof createApp>;
  settings: ServeSettings;
  /** app.request with the Host header a browser would send. */
  request: (path: string, init?: RequestInit) => Promise<Response>;
  /** Mints an API token directly in the store, as `errand token create` does ("own" scope unless asked). */
  apiToken: (name?: string, scope?: "own" | "all" | "metrics", expiresMs?: number) => Promise<string>;
  /** The owner's site registry, when opened with `sites: true`. */
  sites?: SiteRegistry;
  close: () => Promise<void>;
}

export interface HarnessOptions {
  port?: number;
  settings?: Partial<ServeSettings>;
  home?: string;
  clock?: () => number;
  readiness?: () => Promise<ReadinessReport>;
  /** ERRAND_TRUSTED_PROXIES for the real-socket server. */
  trustedProxies?: string;
  /** The fake executor's counting site (reads GET <origin>/read/<id>, writes POST <origin>/write/<id>). */
  fixtureOrigin?: string;
  /** A real executor instead of the fake one (Chromium tests), and errand_look over it. */
  execute?: ExecuteTask;
  /** More of the app's dependencies (the owner's sites, login browsers). */
  extraDeps?: Partial<AppDeps>;
  /** Keep the owner password's hash in the access store and read it from there, as errand serve does. */
  ownerSecretInStore?: boolean;
  /** Open the owner's site registry in the same store, as errand serve does: submit sees its grants, the console gives and revokes them, status lists sites. */
  sites?: boolean;
}

function collectingLogger(logs: LoggedLine[]): HttpLogger {
  return {
    debug: (message, fields) => logs.push({ level: "debug", message, fields }),
    info: (message, fields) => logs.push({ level: "info", message, fields }),
    warn: (message, fields) => logs.push({ level: "warn", message, fields }),
    error: (message, error) => logs.push({ level: "error", message: `${message}: ${error instanceof Error ? error.message : String(error)}` }),
  };
}

export const TEST_PROVIDERS: ProviderCapability[] = [{ name: "local", kind: "local", usable: true, note: "fake executor" }];

export async function openAppHarness(options: HarnessOptions = {}): Promise<AppHarness> {
  const fake = createFakeExecutor(options.fixtureOrigin === undefined ? {} : { fixtureOrigin: options.fixtureOrigin });
  const ops = await openHarness({
    execute: options.execute ?? fake.execute,
    ...(options.home === undefined ? {} : { home: options.home }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  // The same registry admission reads (createErrand's), as errand serve hands it to the owner console.
  const registry: SiteRegistry | undefined = options.sites === true ? ops.errand.siteRegistry() : undefined;
  const { access, hasher } = ops.errand.accessTables();
  ownerHash ??= hashOwnerPassword(OWNER_PASSWORD);
  const secret = await ownerHash;
  if (options.ownerSecretInStore === true) await access.writeOwnerSecret(secret);
  const logs: LoggedLine[] = [];
  const logger = collectingLogger(logs);
  const queue = createQueueDriver({ service: ops.service, logger });
  const port = options.port ?? 8787;
  const settings = resolveServeSettings({ host: "127.0.0.1", port, extraRedirects: [CALLBACK] }, options.settings);
  const deps: AppDeps = {
    settings,
    service: ops.service,
    access,
    hasher,
    ownerSecret: options.ownerSecretInStore === true ? () => access.readOwnerSecret() : () => Promise.resolve(secret),
    queue,
    providers: () => TEST_PROVIDERS,
    clientAddress:
      options.port === undefined ? (c) => c.req.header("x-test-address") ?? "test" : nodeClientAddressReader(parseTrustedProxies(options.trustedProxies)),
    logger,
    version: "test",
    commit: "unknown",
    metrics: createErrandMetrics(
      { status: () => ops.service.status(), usage: () => Promise.resolve([{ provider: "kernel", unit: "gb_second", used: 12, limit: 100 }]) },
      { version: "test", commit: "unknown" },
    ),
    ...(options.readiness === undefined ? {} : { readiness: options.readiness }),
    ...(registry === undefined
      ? {}
      : {
          sites: async () =>
            (await registry.list()).map((site) => ({
              name: site.name,
              origins: site.origins,
              loggedIn: site.loggedIn,
              grants: site.grants.map((g) => ({ id: g.id, risk: g.risk, secrets: g.secrets, expiresAt: g.expiresAt })),
            })),
          ownerSites: {
            allow: (site: string, grant: { risk: "reversible_write" | "consequential"; secrets: string[]; durationMs: number }) =>
              registry.allow(site, { ...grant, via: "console" }),
            revoke: (site: string) => registry.revoke(site),
          },
        }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(options.execute === undefined ? {} : { look: (request: unknown) => lookAtPage(options.execute as ExecuteTask, request) }),
    ...options.extraDeps,
  };
  const app = createApp(deps);
  return {
    ops,
    access,
    hasher,
    deps,
    queue,
    logs,
    app,
    settings,
    request: (path, init = {}) => {
      const headers = new Headers(init.headers);
      if (!headers.has("host")) headers.set("host", `127.0.0.1:${port}`);
      return Promise.resolve(app.request(`http://127.0.0.1:${port}${path}`, { ...init, headers }));
    },
    async apiToken(name = "test", scope = "own", expiresMs?: number) {
      const kind = scope === "all" ? "operator" : scope === "metrics" ? "metrics" : "api";
      const token = hasher.mint(kind);
      await access.createApiToken({
        tokenId: `tok_${crypto.randomUUID().slice(0, 8)}`,
        name,
        tokenHash: hasher.hash(kind, token),
        scope,
        ...(expiresMs === undefined ? {} : { expiresMs }),
      });
      return token;
    },
    ...(registry === undefined ? {} : { sites: registry }),
    async close() {
      await queue.close();
      await ops.close();
    },
  };
}

/**
 * The same app on a real loopback socket (port chosen by the OS), watching forwarded headers from
 * untrusted peers as errand serve does (`forwarded` holds what it recorded for errand doctor).
 */
export async function startAppServer(
  options: Omit<HarnessOptions, "port"> = {},
): Promise<AppHarness & { origin: string; port: number; forwarded: UntrustedForwarding[] }> {
  const listener = await listenNode({ host: "127.0.0.1", port: 0 });
  const harness = await openAppHarness({ ...options, port: listener.port });
  const forwarded: UntrustedForwarding[] = [];
  const watch = createForwardedHeaderWatch({
    trusted: parseTrustedProxies(options.trustedProxies),
    logger: harness.deps.logger,
    record: (seen) => forwarded.push({ ...seen }),
  });
  listener.setHandler((request, env) => {
    watch.observe(nodePeerAddress(env), request.headers);
    return harness.app.fetch(request, env);
  });
  return {
    ...harness,
    origin: `http://127.0.0.1:${listener.port}`,
    port: listener.port,
    forwarded,
    async close() {
      await listener.close();
      await harness.close();
    },
  };
}
