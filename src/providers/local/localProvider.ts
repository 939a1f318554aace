import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { CHROMIUM_INSTALL_HINT, findChromium } from "./findChromium.js";
import { ProviderError } from "../providerTypes.js";
import type { BrowserProvider, OpenSessionOptions, ProviderSession } from "../providerTypes.js";

/**
 * Flags for a locked-down server browser: nothing phones home, nothing updates itself, no HTTP/3
 * (QUIC is UDP and would bypass a proxy), and WebRTC may not send UDP outside a proxy.
 */
export const LOCKED_DOWN_CHROMIUM_ARGS = [
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
  "--disable-default-apps",
  "--disable-domain-reliability",
  "--disable-client-side-phishing-detection",
  "--no-first-run",
  "--no-default-browser-check",
  "--no-pings",
  "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-features=NetworkPrediction,Prerender2,SpeculationRulesPrefetchProxy,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,Translate",
];

/** A per-session proxy: where Chromium sends traffic, what it refused, and how to stop it. */
export interface SessionProxy {
  server: string;
  blocked(): { method: string; host: string; port: number; code: string; reason: string }[];
  close(): Promise<void>;
}

export interface LocalProviderOptions {
  env: NodeJS.ProcessEnv;
  /** A proxy every request of a context goes through (the egress filter), created per session. */
  proxyForSession?: () => Promise<SessionProxy>;
}

/**
 * The embedded default: Debian Chromium driven by playwright-core. One warm browser per process;
 * each attempt gets a fresh context (no storage, service workers blocked, downloads refused) that
 * is always closed when the session is released.
 */
export function createLocalProvider(options: LocalProviderOptions): BrowserProvider {
  let browserPromise: Promise<Browser> | null = null;
  let counter = 0;

  async function warmBrowser(): Promise<Browser> {
    if (browserPromise !== null) {
      const existing = await browserPromise.catch(() => null);
      if (existing?.isConnected()) return existing;
    }
    const executablePath = findChromium(options.env);
    if (executablePath === null) throw new ProviderError("configuration_error", CHROMIUM_INSTALL_HINT);
    browserPromise = chromium.launch({ executablePath, headless: true, args: LOCKED_DOWN_CHROMIUM_ARGS, chromiumSandbox: chromiumSandboxWanted(options.env), timeout: 30_000 });
    try {
      return await browserPromise;
    } catch (error) {
      browserPromise = null;
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      throw new ProviderError("provider_unavailable", `Chromium at ${executablePath} failed to start: ${reason}`);
    }
  }

  return {
    name: "local",
    kind: "local",
    missingConfiguration: () => (findChromium(options.env) === null ? CHROMIUM_INSTALL_HINT : null),
    async openSession(_open: OpenSessionOptions): Promise<ProviderSession> {
      const browser = await warmBrowser();
      const proxy = options.proxyForSession ? await options.proxyForSession() : null;
      try {
        const context = await browser.newContext({
          serviceWorkers: "block",
          acceptDownloads: false,
          ...(proxy === null ? {} : { proxy: { server: proxy.server } }),
        });
        counter += 1;
        const sessionId = `local-${process.pid}-${counter}`;
        return {
          provider: "local",
          context,
          sessionId,
          ownsContext: true,
          ...(proxy === null ? {} : { egressBlocked: () => proxy.blocked() }),
          async release() {
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
