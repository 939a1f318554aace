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
}

/** ERRAND_MAX_DOCUMENT_BYTES when nobody configured it. */
const DEFAULT_MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

/** What a session may reach when the caller did not say: no operator allowance, no writes. */
const NARROWEST_SCOPE: SessionScope = { hosts: [], readOnly: true };

/**
 * The embedded default: Debian Chromium driven by playwright-core. One warm browser per process;
 * each attempt gets a fresh context (no storage, service workers blocked, downloads refused) that
 * is always closed when the session is released. Each context has its own egress proxy, with an
 * explicit empty bypass list so no environment variable can add one.
 */
export function createLocalProvider(options: LocalProviderOptions): BrowserProvider {
  let browserPromise: Promise<Browser> | null = null;
  let backgroundProxy: RefusingProxy | null = null;
  let counter = 0;
  let noticeGiven = false;

  async function warmBrowser(): Promise<Browser> {
    if (browserPromise !== null) {
      const existing = await browserPromise.catch(() => null);
      if (existing?.isConnected()) return existing;
    }
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
    if (proxied) backgroundProxy ??= await startRefusingProxy(options.onBackgroundRefused);
    browserPromise = chromium.launch({
      executablePath,
      headless: true,
      args: [...LOCKED_DOWN_CHROMIUM_ARGS, ...(proxied ? PROXIED_CHROMIUM_ARGS : [])],
      ...(backgroundProxy === null ? {} : { proxy: { server: backgroundProxy.url, bypass: "" } }),
      chromiumSandbox: sandbox,
      env: clearProxyWeakeningEnv(process.env, options.env),
      timeout: 30_000,
      // errand decides what a signal means (serve and runner let running attempts finish first);
      // Playwright's own handlers would kill the browser under them on SIGTERM.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
    try {
      return await browserPromise;
    } catch (error) {
      browserPromise = null;
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      // Seen in Docker under its default seccomp profile: the sandbox cannot make its user namespaces
      // and Chromium exits at once with a message that does not say so.
      const hint = sandbox ? " (Chromium's sandbox was on: where user namespaces are refused, as in Docker's default seccomp profile, it cannot start; `errand doctor` checks this, and ERRAND_CHROMIUM_SANDBOX=off turns the sandbox off, see docs/SECURITY.md)" : "";
      throw new ProviderError("provider_unavailable", `Chromium at ${executablePath} failed to start: ${reason}${hint}`);
    }
  }

  return {
    name: "local",
    kind: "local",
    missingConfiguration: () => (findChromium(options.env) === null ? CHROMIUM_INSTALL_HINT : null),
    async openSession(open: OpenSessionOptions): Promise<ProviderSession> {
      const browser = await warmBrowser();
      const proxy = options.proxyForSession ? await options.proxyForSession(open.scope ?? NARROWEST_SCOPE) : null;
      try {
        // Read again per context: Playwright consults process.env each time it creates one.
        clearProxyWeakeningEnv(process.env, {});
        const context = await browser.newContext({
          serviceWorkers: "block",
          acceptDownloads: false,
          ...(options.acceptAnyCertificateForTests === true ? { ignoreHTTPSErrors: true } : {}),
          ...(proxy === null ? {} : { proxy: { server: proxy.server, bypass: "", ...(proxy.credentials ?? {}) } }),
        });
        counter += 1;
        const sessionId = `local-${process.pid}-${counter}`;
        return {
          provider: "local",
          context,
          sessionId,
          ownsContext: true,
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
            await proxy?.close().catch(() => undefined);
          },
        };
      } catch (error) {
        await proxy?.close().catch(() => undefined);
        throw error;
      }
    },
    async shutdown() {
      const pending = browserPromise;
      browserPromise = null;
      const browser = await pending?.catch(() => null);
      await browser?.close().catch(() => undefined);
      const proxy = backgroundProxy;
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
