/**
 * How errand launches the local Chromium: the switches that keep it quiet and inside the egress
 * proxy, the environment it gets, and whether its own sandbox is on. Each switch below was checked
 * against the shipped Chromium 156 (test/providers/chromiumLaunch.test.ts counts what still leaks).
 */

/**
 * Features Playwright itself turns off. Chromium keeps only the last --disable-features it is given,
 * so errand's list must repeat Playwright's or it would silently switch them back on (HTTPS upgrades
 * of test origins, network time queries to clients2.google.com, the CORS restart that breaks routes).
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
];

/** Features errand turns off: speculative connections, and Google services that talk on their own. */
const ERRAND_DISABLED_FEATURES = [
  // No connection the page did not ask for: predictors, prerender, prefetch proxies.
  "NetworkPrediction",
  "Prerender2",
  "SpeculationRulesPrefetchProxy",
  // Autofill asks content-autofill.googleapis.com about every form it sees, from inside the task's context.
  "AutofillServerCommunication",
  "InterestFeedContentSuggestions",
  "Translate",
  "CertificateTransparencyComponentUpdater",
];

/**
 * Flags for a locked-down server browser:
 * - nothing phones home or updates itself from inside a task's context (autofill, time, hints);
 * - no HTTP/3 (QUIC is UDP and would bypass the proxy);
 * - WebRTC sends no UDP at all: `--webrtc-ip-handling-policy=disable_non_proxied_udp` (the name in
 *   Chromium 156; the older `--force-webrtc-ip-handling-policy` is ignored) leaves WebRTC only TCP
 *   through the proxy, where the egress proxy refuses it (WebRTC's tunnels carry no User-Agent);
 * - no SharedWorker: its requests escape Playwright's routing, and no task needs one.
 */
export const LOCKED_DOWN_CHROMIUM_ARGS: readonly string[] = [
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
  "--webrtc-ip-handling-policy=disable_non_proxied_udp",
  "--disable-blink-features=SharedWorker",
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...ERRAND_DISABLED_FEATURES].join(",")}`,
];

/**
 * Added when every context has its own egress proxy (errand's wiring always does): every request
 * then goes through a proxy (the task's, or the browser-wide one that refuses everything, for
 * whatever Chromium sends outside task contexts), and the proxy resolves names itself. So the
 * browser's own resolver answers nothing but the proxies' loopback address, and no DNS query (for
 * update checks, account checks, or a page's TURN host name) ever leaves the browser.
 */
export const PROXIED_CHROMIUM_ARGS: readonly string[] = ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"];

/**
 * Variables that would change how traffic leaves the browser. Playwright runs inside errand's own
 * process and reads the first two from process.env whenever it creates a context (one stops it
 * forcing loopback through the proxy, the other adds a bypass list); the rest are proxy settings
 * Chromium could pick up from its environment.
 */
const IN_PROCESS_WEAKENING = ["PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK", "PLAYWRIGHT_PROXY_BYPASS_FOR_TESTING"];
const WEAKENING_VARIABLES = [
  ...IN_PROCESS_WEAKENING,
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "auto_proxy",
];

/**
 * Removes Playwright's proxy-weakening variables from errand's own environment (where the
 * in-process Playwright reads them) and returns the environment the browser process gets: without
 * any PLAYWRIGHT_* variable and without proxy settings. errand's own proxy variables stay for errand.
 */
export function clearProxyWeakeningEnv(processEnv: NodeJS.ProcessEnv, configured: NodeJS.ProcessEnv): Record<string, string> {
  for (const name of IN_PROCESS_WEAKENING) delete processEnv[name];
  const browserEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(configured)) {
    if (value !== undefined && !WEAKENING_VARIABLES.includes(name) && !name.startsWith("PLAYWRIGHT_")) browserEnv[name] = value;
  }
  return browserEnv;
}

/** The startup notice when Chromium runs without its own sandbox (as root, or turned off), or null. */
export function sandboxNotice(sandboxOn: boolean, env: NodeJS.ProcessEnv): string | null {
  if (sandboxOn) return null;
  if (env["ERRAND_CHROMIUM_SANDBOX"] === "off") return "local Chromium runs without its own sandbox because ERRAND_CHROMIUM_SANDBOX=off; see docs/SECURITY.md.";
  return "errand runs as root, so local Chromium runs without its own sandbox (Chromium refuses to sandbox itself as root). Run errand as its own unprivileged user to keep the sandbox on; see docs/SECURITY.md.";
}
