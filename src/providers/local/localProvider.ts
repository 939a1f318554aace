import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { clearProxyWeakeningEnv, LOCKED_DOWN_CHROMIUM_ARGS, PROXIED_CHROMIUM_ARGS, sandboxNotice } from "./chromiumLaunch.js";
import { CHROMIUM_INSTALL_HINT, findChromium } from "./findChromium.js";
import { ProviderError } from "../providerTypes.js";
import type { BrowserProvider, DocumentRequest, OpenSessionOptions, ProviderSession, SessionScope } from "../providerTypes.js";
import { fetchDocument } from "./fetchDocument.js";
import { urlHostPort } from "./tunnelGate.js";
import { startRefusingProxy } from "./refusingProxy.js";
import type { RefusedBackgroundRequest, RefusingProxy } from "./refusingProxy.js";
import { guardBrowserWrites } from "./browserWriteGuard.js";
import type { BrowserStoppedWrite, BrowserWriteGuard } from "./browserWriteGuard.js";

/** A per-session proxy: where Chromium sends traffic, what it refused, and how to stop it. */
export interface SessionProxy {
  server: string;
  /** The proxy credential errand's own request clients send up front (Chromium never learns it); see EgressProxyOptions.callers. */
  credentials?: { username: string; password: string };
  blocked(): { method: string; host: string; port: number; code: string; reason: string }[];
  /** The guard let a request to host:port through: the browser's tunnels there may go (EgressProxy.admit). */
  admit?(host: string, port: number): void;
  /** The guard stopped a navigation to host:port: refuse the tunnels held for it (EgressProxy.dismiss). */
  dismiss?(host: string, port: number, code: string, reason: string): void;
  /** Refuses everything from now on and cuts every open connection (the session is ending). */
  seal(): void;
  close(): Promise<void>;
}

export interface LocalProviderOptions {
  env: NodeJS.ProcessEnv;
  /** A proxy every request of a context goes through (the egress filter), created per session for the task's scope. */
  proxyForSession?: (scope: SessionScope) => Promise<SessionProxy>;
  /** Most bytes of a main-frame document errand fetches for the browser (ERRAND_MAX_DOCUMENT_BYTES). Default 10 MiB. */
  maxDocumentBytes?: number;
  /** Told once, when the browser first starts, about anything the operator should know (no sandbox as root). */
  onNotice?: (message: string) => void;
  /**
   * Tests only: accept any TLS certificate, in the browser and in errand's document fetches, so an
   * attack test can serve https from a self-signed loopback site. Nothing in errand's configuration sets it.
   */
  acceptAnyCertificateForTests?: boolean;
  /** Told about each request Chromium made outside any task's context, which its browser-wide proxy refused. */
  onBackgroundRefused?: (request: RefusedBackgroundRequest) => void;
  /** Told about each write the read_only browser stopped that no open session could be named for. */
  onBackgroundWriteStopped?: (write: BrowserStoppedWrite) => void;
}

/** The two warm browsers: one for sessions that may write, one for read_only sessions. */
type BrowserRole = "write" | "readOnly";

/** A launched browser and, for the read_only one, its browser-wide write stop. */
interface WarmBrowser {
  browser: Browser;
  writeGuard: BrowserWriteGuard | null;
}

/** ERRAND_MAX_DOCUMENT_BYTES when nobody configured it. */
const DEFAULT_MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** Stopped writes listed per session; all are counted (a page looping on beacons must not grow errand's memory). */
const MAX_LISTED_WRITES = 100;

/** What a session may reach when the caller did not say: no operator allowance, no writes. */
const NARROWEST_SCOPE: SessionScope = { hosts: [], readOnly: true };

/**
 * The embedded default: Debian Chromium driven by playwright-core. Two warm browsers per process,
 * each launched on first use: one for sessions that may write, and one for read_only sessions
 * (scope.readOnly, `errand look` included), which fails every request but GET/HEAD/OPTIONS at the
 * browser target before any context exists (browserWriteGuard.ts): a browser-wide stop the write
 * browser cannot have. Each attempt gets a fresh context (no storage, service workers blocked,
 * downloads refused) that is always closed when the session is released. Each context has its own
 * egress proxy, with an explicit empty bypass list so no environment variable can add one.
 */
export function createLocalProvider(options: LocalProviderOptions): BrowserProvider {
  const warm: Record<BrowserRole, Promise<WarmBrowser> | null> = { write: null, readOnly: null };
  let backgroundProxy: Promise<RefusingProxy> | null = null;
  let counter = 0;
  let noticeGiven = false;

  /** The role's warm browser: the running one, or a new launch shared by everyone who asks meanwhile. */
  async function warmBrowser(role: BrowserRole): Promise<WarmBrowser> {
    const existing = warm[role];
    if (existing !== null) {
      const running = await existing.catch(() => null);
      if (running?.browser.isConnected()) return running;
      // Someone else saw it gone first and is launching its successor: share that launch.
      if (warm[role] !== existing) return warmBrowser(role);
    }
    const launching = launchBrowser(role);
    warm[role] = launching;
    try {
      return await launching;
    } catch (error) {
      if (warm[role] === launching) warm[role] = null;
      throw error;
    }
  }

  async function launchBrowser(role: BrowserRole): Promise<WarmBrowser> {
    const executablePath = findChromium(options.env);
    if (executablePath === null) throw new ProviderError("configuration_error", CHROMIUM_INSTALL_HINT);
    const sandbox = chromiumSandboxWanted(options.env);
    const notice = sandboxNotice(sandbox, options.env);
    if (notice !== null && !noticeGiven) {
      noticeGiven = true;
      options.onNotice?.(notice);
    }
    // With an egress proxy per context, the browser's only way out outside task contexts refuses everything.
    const proxied = options.proxyForSession !== undefined;
    if (proxied && backgroundProxy === null) {
      const starting = startRefusingProxy(options.onBackgroundRefused);
      backgroundProxy = starting;
      // A proxy that failed to start is tried again by the next launch.
      starting.catch(() => {
        if (backgroundProxy === starting) backgroundProxy = null;
      });
    }
    const refusing = proxied ? await backgroundProxy : null;
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath,
        headless: true,
        args: [...LOCKED_DOWN_CHROMIUM_ARGS, ...(proxied ? PROXIED_CHROMIUM_ARGS : [])],
        ...(refusing === null ? {} : { proxy: { server: refusing.url, bypass: "" } }),
        chromiumSandbox: sandbox,
        env: clearProxyWeakeningEnv(process.env, options.env),
        timeout: 30_000,
        // errand decides what a signal means (serve and runner let running attempts finish first);
        // Playwright's own handlers would kill the browser under them on SIGTERM.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (error) {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      // Seen in Docker under its default seccomp profile: the sandbox cannot make its user namespaces
      // and Chromium exits at once with a message that does not say so.
      const hint = sandbox ? " (Chromium's sandbox was on: where user namespaces are refused, as in Docker's default seccomp profile, it cannot start; `errand doctor` checks this, and ERRAND_CHROMIUM_SANDBOX=off turns the sandbox off, see docs/SECURITY.md)" : "";
      throw new ProviderError("provider_unavailable", `Chromium at ${executablePath} failed to start: ${reason}${hint}`);
    }
    if (role === "write") return { browser, writeGuard: null };
    try {
      // Before any context exists, so every URL loader factory of this browser carries the stop.
      const writeGuard = await guardBrowserWrites(browser, (write) => options.onBackgroundWriteStopped?.(write));
      return { browser, writeGuard };
    } catch (error) {
      // A read_only session never runs in a browser without its write stop.
      await browser.close().catch(() => undefined);
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new ProviderError("provider_unavailable", `The read_only browser's write interceptor could not be installed: ${reason}`);
    }
  }

  return {
    name: "local",
    kind: "local",
    missingConfiguration: () => (findChromium(options.env) === null ? CHROMIUM_INSTALL_HINT : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const scope = open.scope ?? NARROWEST_SCOPE;
      const { browser, writeGuard } = await warmBrowser(scope.readOnly ? "readOnly" : "write");
      const proxy = options.proxyForSession ? await options.proxyForSession(scope) : null;
      try {
        // Read again per context: Playwright consults process.env each time it creates one.
        clearProxyWeakeningEnv(process.env, {});
        const newContext = () =>
          browser.newContext({
            serviceWorkers: "block",
            acceptDownloads: false,
            ...(options.acceptAnyCertificateForTests === true ? { ignoreHTTPSErrors: true } : {}),
            ...(proxy === null ? {} : { proxy: { server: proxy.server, bypass: "", ...(proxy.credentials ?? {}) } }),
          });
        const stopped = { count: 0, listed: [] as BrowserStoppedWrite[] };
        const onStopped = (write: BrowserStoppedWrite) => {
          stopped.count += 1;
          if (stopped.listed.length < MAX_LISTED_WRITES) stopped.listed.push(write);
        };
        const adopted = writeGuard === null ? { context: await newContext(), forget: () => undefined } : await writeGuard.adopt(newContext, onStopped);
        const context = adopted.context;
        counter += 1;
        const sessionId = `local-${process.pid}-${counter}`;
        return {
          provider: "local",
          context,
          sessionId,
          ownsContext: true,
          ...(writeGuard === null ? {} : { writesStopped: () => ({ count: stopped.count, listed: [...stopped.listed] }) }),
          ...(proxy === null
            ? {}
            : {
                egressBlocked: () => proxy.blocked(),
                fetchDocument: (request: DocumentRequest) => fetchDocument(request, { proxyUrl: proxy.server, ...(proxy.credentials === undefined ? {} : { proxyCredentials: proxy.credentials }), maxBytes: options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES, timeoutMs: open.budgetMs, acceptAnyCertificate: options.acceptAnyCertificateForTests === true }),
                requestJudged(url: string, stopped?: { code: string; reason: string }) {
                  const target = urlHostPort(url);
                  if (target === null) return;
                  if (stopped === undefined) proxy.admit?.(target.host, target.port);
                  else proxy.dismiss?.(target.host, target.port, stopped.code, stopped.reason);
                },
              }),
          async seal() {
            proxy?.seal();
            await context.close().catch(() => undefined);
          },
          async release() {
            proxy?.seal();
            await context.close().catch(() => undefined);
            adopted.forget();
            await proxy?.close().catch(() => undefined);
          },
        };
      } catch (error) {
        await proxy?.close().catch(() => undefined);
        throw error;
      }
    },
    async shutdown() {
      const pending = [warm.write, warm.readOnly];
      warm.write = null;
      warm.readOnly = null;
      await Promise.all(
        pending.map(async (launched) => {
          const running = await launched?.catch(() => null);
          await running?.browser.close().catch(() => undefined);
        }),
      );
      const proxy = await backgroundProxy?.catch(() => null);
      backgroundProxy = null;
      await proxy?.close();
    },
  };
}

/**
 * Chromium keeps its own sandbox whenever it can: always, unless errand runs as root (where
 * Chromium refuses to start sandboxed; run errand as its own user, see deploy/) or the operator
 * turned it off with ERRAND_CHROMIUM_SANDBOX=off (a kernel without unprivileged user namespaces;
 * `errand doctor` says which).
 */
export function chromiumSandboxWanted(env: NodeJS.ProcessEnv): boolean {
  if (env["ERRAND_CHROMIUM_SANDBOX"] === "off") return false;
  return process.getuid?.() !== 0;
}
