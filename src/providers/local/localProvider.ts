import type { Browser, BrowserContext, Page } from "playwright-core";
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

/** A session proxy started before its task: it refuses everything until `scopeTo` (once). */
export interface ScopableSessionProxy extends SessionProxy {
  scopeTo(scope: SessionScope): void;
}

export interface LocalProviderOptions {
  env: NodeJS.ProcessEnv;
  /** A proxy every request of a context goes through (the egress filter), created per session for the task's scope. */
  proxyForSession?: (scope: SessionScope) => Promise<SessionProxy>;
  /**
   * Keep one spare session per browser ready: a fresh context and a blank page behind a proxy from
   * here, which refuses everything until the session that takes it gives the task's scope. Opening a
   * page costs 0.3-0.8 s on a 2-core machine; a long-lived process (serve, runner --watch) pays it
   * between tasks instead of inside one. A spare is made after a session of its browser ends.
   */
  spareProxy?: () => Promise<ScopableSessionProxy>;
  /** Most bytes of a main-frame document errand fetches for the browser (ERRAND_MAX_DOCUMENT_BYTES). Default 10 MiB. */
  maxDocumentBytes?: number;
  /** Most bytes of a response marked as a download (ERRAND_DOWNLOAD_MAX_BYTES); absent: maxDocumentBytes. */
  maxDownloadBytes?: number;
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

/** A fresh context and its blank page, as a session gets it (opened for it, or a spare taken). */
interface OpenedContext {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  forget(): void;
  proxy: SessionProxy | null;
  /** The writes the read_only browser stopped for this context, counted (and the first ones listed). */
  stopped: { count: number; listed: BrowserStoppedWrite[] };
  /** The context runs in the read_only browser, under its browser-wide write stop. */
  guarded: boolean;
}

/** A context opened before its task, behind a proxy that refuses everything until scoped. */
interface Spare extends OpenedContext {
  proxy: ScopableSessionProxy;
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
 * downloads handed to the executor's download keeper) that is always closed when the session is released. Each context has its own
 * egress proxy, with an explicit empty bypass list so no environment variable can add one.
 */
export function createLocalProvider(options: LocalProviderOptions): BrowserProvider {
  const warm: Record<BrowserRole, Promise<WarmBrowser> | null> = { write: null, readOnly: null };
  let backgroundProxy: Promise<RefusingProxy> | null = null;
  const spares: Record<BrowserRole, Promise<Spare | null> | null> = { write: null, readOnly: null };
  let closing = false;
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
      // Loaded at the first launch: a host that never runs a local browser (Deno, Val Town) never loads the library.
      const { chromium } = await import("playwright-core");
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
      const hint = sandbox
        ? " (Chromium's sandbox was on: where user namespaces are refused, as in Docker's default seccomp profile, it cannot start; `errand doctor` checks this, and ERRAND_CHROMIUM_SANDBOX=off turns the sandbox off, see docs/SECURITY.md)"
        : "";
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

  /** A fresh context (adopted by the read_only browser's write stop) behind `proxy`, with its blank page. */
  async function openContext(warmed: WarmBrowser, proxy: SessionProxy | null): Promise<OpenedContext> {
    const { browser, writeGuard } = warmed;
    // Read again per context: Playwright consults process.env each time it creates one.
    clearProxyWeakeningEnv(process.env, {});
    const newContext = () =>
      browser.newContext({
        serviceWorkers: "block",
        // Downloads land in Playwright's temporary folder for the context; the executor's download keeper judges, reads and deletes each.
        acceptDownloads: true,
        ...(options.acceptAnyCertificateForTests === true ? { ignoreHTTPSErrors: true } : {}),
        ...(proxy === null ? {} : { proxy: { server: proxy.server, bypass: "", ...(proxy.credentials ?? {}) } }),
      });
    const stopped = { count: 0, listed: [] as BrowserStoppedWrite[] };
    const onStopped = (write: BrowserStoppedWrite) => {
      stopped.count += 1;
      if (stopped.listed.length < MAX_LISTED_WRITES) stopped.listed.push(write);
    };
    const adopted = writeGuard === null ? { context: await newContext(), forget: () => undefined } : await writeGuard.adopt(newContext, onStopped);
    try {
      const page = await adopted.context.newPage();
      return { browser, context: adopted.context, page, forget: () => adopted.forget(), proxy, stopped, guarded: writeGuard !== null };
    } catch (error) {
      await adopted.context.close().catch(() => undefined);
      adopted.forget();
      throw error;
    }
  }

  /** The role's spare, if one is ready and still usable; it is gone from the shelf either way. */
  async function takeSpare(role: BrowserRole): Promise<Spare | null> {
    const shelved = spares[role];
    if (shelved === null) return null;
    spares[role] = null;
    const spare = await shelved;
    if (spare === null) return null;
    if (!spare.browser.isConnected() || spare.page.isClosed()) {
      await discard(spare);
      return null;
    }
    // Whatever the blank page did before its task is nobody's evidence.
    spare.stopped.count = 0;
    spare.stopped.listed.length = 0;
    return spare;
  }

  /** Puts a new spare on the role's shelf, unless spares are off, one is there, or the provider is closing. */
  function restock(role: BrowserRole): void {
    const makeProxy = options.spareProxy;
    if (makeProxy === undefined || closing || spares[role] !== null) return;
    spares[role] = (async () => {
      const warmed = await warmBrowser(role);
      const proxy = await makeProxy();
      try {
        return { ...(await openContext(warmed, proxy)), proxy };
      } catch (error) {
        await proxy.close().catch(() => undefined);
        throw error;
      }
    })().catch(() => null);
  }

  /**
   * Ends an opened context: its proxy is sealed first (nothing more leaves while the context closes),
   * then the context is closed, forgotten by the write stop, and its proxy closed.
   */
  async function closeOpened(opened: OpenedContext): Promise<void> {
    opened.proxy?.seal();
    await opened.context.close().catch(() => undefined);
    opened.forget();
    await opened.proxy?.close().catch(() => undefined);
  }

  async function discard(spare: Spare | null): Promise<void> {
    if (spare !== null) await closeOpened(spare);
  }

  /** The provider session over an opened context; its end makes the next spare of its browser. */
  function sessionOf(role: BrowserRole, opened: OpenedContext, open: OpenSessionOptions): ProviderSession {
    const { context, proxy, stopped } = opened;
    counter += 1;
    return {
      provider: "local",
      context,
      page: opened.page,
      sessionId: `local-${process.pid}-${counter}`,
      ownsContext: true,
      ...(opened.guarded ? { writesStopped: () => ({ count: stopped.count, listed: [...stopped.listed] }) } : {}),
      ...(proxy === null
        ? {}
        : {
            egressBlocked: () => proxy.blocked(),
            fetchDocument: (request: DocumentRequest) =>
              fetchDocument(request, {
                proxyUrl: proxy.server,
                ...(proxy.credentials === undefined ? {} : { proxyCredentials: proxy.credentials }),
                maxBytes: options.maxDocumentBytes ?? DEFAULT_MAX_DOCUMENT_BYTES,
                ...(options.maxDownloadBytes === undefined ? {} : { maxAttachmentBytes: options.maxDownloadBytes }),
                timeoutMs: open.budgetMs,
                acceptAnyCertificate: options.acceptAnyCertificateForTests === true,
              }),
            requestJudged(url: string, judged?: { code: string; reason: string }) {
              const target = urlHostPort(url);
              if (target === null) return;
              if (judged === undefined) proxy.admit?.(target.host, target.port);
              else proxy.dismiss?.(target.host, target.port, judged.code, judged.reason);
            },
          }),
      async seal() {
        proxy?.seal();
        await context.close().catch(() => undefined);
      },
      async release() {
        await closeOpened(opened);
        restock(role);
      },
    };
  }

  return {
    name: "local",
    kind: "local",
    missingConfiguration: () => (findChromium(options.env) === null ? CHROMIUM_INSTALL_HINT : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const scope = open.scope ?? NARROWEST_SCOPE;
      const role: BrowserRole = scope.readOnly ? "readOnly" : "write";
      const spare = await takeSpare(role);
      if (spare !== null) {
        spare.proxy.scopeTo(scope);
        return sessionOf(role, spare, open);
      }
      const warmed = await warmBrowser(role);
      const proxy = options.proxyForSession ? await options.proxyForSession(scope) : null;
      try {
        return sessionOf(role, await openContext(warmed, proxy), open);
      } catch (error) {
        await proxy?.close().catch(() => undefined);
        throw error;
      }
    },
    async shutdown() {
      closing = true;
      await Promise.all((["write", "readOnly"] as const).map(async (role) => discard(await takeSpare(role))));
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
