import type { APIResponse, BrowserContext, Download, Page, Request, Route } from "playwright-core";
import { isReadOnlyMethod } from "../policy/readOnlyMethods.js";
import { DocumentFetchError } from "../providers/providerTypes.js";
import type { DocumentRequest, DocumentResponse } from "../providers/providerTypes.js";
import type { AttemptState } from "./attemptState.js";
import type { NetworkGuard } from "./networkGuard.js";
import { originOf } from "./originOf.js";
import type { Redactor } from "./redactor.js";
import type { SecretEgressGuard } from "./secretEgressGuard.js";
import type { NewTabs } from "./newTabs.js";
import { sessionLeakReason } from "./sessionLeakReason.js";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** How many redirect hops a navigation may take before errand refuses it. */
const MAX_REDIRECTS = 10;

export interface GuardOptions {
  readOnly: boolean;
  guard: NetworkGuard;
  hostAllowed: (url: string) => boolean;
  state: AttemptState;
  redactor: Redactor;
  /** The page the task drives; every other page is a popup and is closed at once. */
  mainPage: () => Page | null;
  beforeMutationBoundary: () => Promise<void>;
  /** The session's capped document fetcher (local provider); absent, navigations use route.fetch. */
  fetchDocument?: (request: DocumentRequest) => Promise<DocumentResponse>;
  /**
   * Tells the session's egress proxy about each request before the browser connects for it: let
   * through (admits the browser's tunnels to its host) or a stopped top-level navigation (refuses
   * the tunnel Chromium opened ahead of it). Local provider; see ProviderSession.requestJudged.
   */
  requestJudged?: (url: string, stopped?: { code: string; reason: string }) => void;
  /** Typed secrets and the sites each may travel to; consulted on every request once one is armed. */
  secretEgress: SecretEgressGuard;
  /**
   * A site task's origins: a request to another origin on one of their hosts (another port or
   * scheme, where the browser would send the site's cookies) is refused (session_egress_blocked).
   */
  siteOrigins?: readonly string[];
  /** A navigation answered with a download past ERRAND_DOWNLOAD_MAX_BYTES, which errand stopped reading: counted as a refused download. */
  refuseOversizeDownload?: () => void;
}

/**
 * Layer 2 of the network policy plus the page guards, on the whole context (so popups' first
 * requests are covered too): every request is checked; main-frame navigations must stay on the
 * task's hosts, including every redirect hop; read_only tasks send nothing but GET/HEAD/OPTIONS;
 * popups are closed, dialogs dismissed; downloads go to the download keeper (guardPages).
 */
export async function installGuards(context: BrowserContext, options: GuardOptions): Promise<void> {
  const { state, redactor } = options;

  const block = (route: Route, request: Request, code: string, reason: string, kind: "policy" | "method" | "navigation" | "secret") => {
    // A stopped navigation's host may hold a tunnel Chromium opened ahead of the request: refuse it too.
    if (kind === "navigation") options.requestJudged?.(request.url(), { code, reason });
    state.recordBlocked(
      { url: redactor.scrub(request.url()), method: request.method(), resourceType: request.resourceType(), code, reason },
      kind,
    );
    return route.abort("blockedbyclient").catch(() => undefined);
  };

  await context.route("**/*", async (route) => {
    const request = route.request();
    const url = request.url();
    const verdict = options.guard.checkRequest(url);
    const navigation = isMainFrameNavigation(request);
    // Another tab's navigation is refused all the same, but it stops the task only when a step needs that tab (NewTabs).
    const flagNavigation = flagFor(request, options);
    if (!verdict.allowed) {
      if (navigation) flagNavigation(state, verdict.code, "The browser was stopped from loading an address the network policy refuses; error.detail has the address and why.", `${redactor.scrub(url)}: ${verdict.reason}`);
      return block(route, request, verdict.code, verdict.reason, navigation ? "navigation" : "policy");
    }
    if (navigation && !options.hostAllowed(url)) {
      const reason = `${hostOf(url)} is not the target's host or one of allowedHosts`;
      flagNavigation(state, "navigation_blocked", "The page tried to navigate off the task's hosts (its target and allowedHosts); nothing was sent there. error.detail has the address.", redactor.scrub(url));
      return block(route, request, "navigation_blocked", reason, "navigation");
    }
    const siteLeak = sessionLeakReason(url, options.siteOrigins);
    if (siteLeak !== null) {
      if (navigation) flagNavigation(state, "session_egress_blocked", "The page tried to go to an origin outside the task's site on a host the site's cookies would be sent to; nothing was sent. error.detail has the address.", originOf(url));
      return block(route, request, "session_egress_blocked", siteLeak, navigation ? "navigation" : "secret");
    }
    let secretBearing = false;
    if (options.secretEgress.active) {
      const outgoing = await describeRequest(request);
      const leaked = options.secretEgress.leak(outgoing);
      if (leaked !== null) {
        const reason = `it carries the secret ${leaked} to ${originOf(url)}, which that secret is not bound to`;
        if (navigation) flagNavigation(state, "secret_egress_blocked", `The page tried to take the secret ${leaked} to a site it is not bound to. Nothing was sent; error.detail has the address.`, originOf(url));
        return block(route, request, "secret_egress_blocked", reason, "secret");
      }
      secretBearing = options.secretEgress.carriesAny(outgoing);
    }
    const method = request.method().toUpperCase();
    if (!isReadOnlyMethod(method)) {
      if (options.readOnly) {
        return block(route, request, "method_blocked", `${method} is not allowed in a read_only task`, "method");
      }
      await options.beforeMutationBoundary();
    }
    // Announced before the browser (or errand) connects for it, so the proxy lets its tunnel through.
    options.requestJudged?.(url);
    // A request carrying a secret is sent by errand hop by hop, so no redirect can take it elsewhere.
    if (secretBearing) return followSecretBearing(route, request, navigation, options, block);
    if (navigation) return followNavigation(context, route, request, options, block);
    return route.continue().catch(() => undefined);
  });

  await context.routeWebSocket(/.*/, (socket) => {
    const httpUrl = socket.url().replace(/^ws/, "http");
    const verdict = options.guard.checkRequest(httpUrl);
    if (!verdict.allowed) {
      state.recordBlocked({ url: redactor.scrub(socket.url()), method: "GET", resourceType: "websocket", code: verdict.code, reason: verdict.reason }, "policy");
      void socket.close({ code: 1008, reason: "blocked by errand network policy" }).catch(() => undefined);
      return;
    }
    const siteLeak = sessionLeakReason(httpUrl, options.siteOrigins);
    if (siteLeak !== null) {
      state.recordBlocked({ url: redactor.scrub(socket.url()), method: "GET", resourceType: "websocket", code: "session_egress_blocked", reason: siteLeak }, "secret");
      void socket.close({ code: 1008, reason: "blocked by errand site session guard" }).catch(() => undefined);
      return;
    }
    const refuseSecret = (name: string, how: string) => {
      state.recordBlocked({ url: redactor.scrub(socket.url()), method: "GET", resourceType: "websocket", code: "secret_egress_blocked", reason: `${how} the secret ${name} to ${originOf(httpUrl)}, which that secret is not bound to` }, "secret");
      void socket.close({ code: 1008, reason: "blocked by errand secret egress guard" }).catch(() => undefined);
    };
    // Once a secret is typed, no socket opens to an origin it is not bound to. The handshake carries
    // the browser's cookies for that URL, and the page may have just put the value in one: reading
    // the cookie jar here raced the page's own document.cookie write (seen once under load), and the
    // browser's real handshake is never shown to errand, so the origin alone decides.
    const unbound = options.secretEgress.active ? options.secretEgress.unboundAt(httpUrl) : null;
    if (unbound !== null) return refuseSecret(unbound, "the socket's handshake could carry");
    options.requestJudged?.(socket.url());
    const server = socket.connectToServer();
    // Messages from the page are forwarded by hand, so each one is checked once a secret is typed.
    socket.onMessage((message) => {
      const leaked = options.secretEgress.active ? options.secretEgress.leak({ url: httpUrl, body: typeof message === "string" ? message : Buffer.from(message) }) : null;
      if (leaked !== null) return refuseSecret(leaked, "a message carried");
      server.send(message);
    });
  });

  // Redirect hops never reach route(); watch them here and stop the page if one breaks policy.
  context.on("request", (request) => {
    if (request.redirectedFrom() === null) return;
    const url = request.url();
    const verdict = options.guard.checkRequest(url);
    const navigation = isMainFrameNavigation(request);
    const offHost = navigation && !options.hostAllowed(url);
    const popup = navigation && isPopupNavigation(request, options.mainPage());
    // A hop a site chose itself (its own redirect) that takes a typed secret elsewhere stops the page.
    const leaked = options.secretEgress.active ? options.secretEgress.leak({ url, body: request.postDataBuffer() }) : null;
    // route() never sees a hop the browser follows; its tunnel waits for this (an allowed hop's host is admitted).
    if (verdict.allowed && !offHost && leaked === null) return options.requestJudged?.(url);
    const code = leaked !== null ? "secret_egress_blocked" : verdict.allowed ? "navigation_blocked" : verdict.code;
    const reason = leaked !== null ? `redirect hop carries the secret ${leaked} to ${originOf(url)}` : verdict.allowed ? `redirect hop to ${hostOf(url)} leaves the task's hosts` : verdict.reason;
    options.requestJudged?.(url, { code, reason });
    state.recordBlocked({ url: redactor.scrub(url), method: request.method(), resourceType: request.resourceType(), code, reason }, leaked !== null ? "secret" : navigation ? "navigation" : "policy");
    if (popup) {
      void pageOf(request)?.close().catch(() => undefined);
    } else if (navigation) {
      flagNavigation(state, code, "A redirect took the page to an address it may not reach; the page was stopped. error.detail has the address and why.", `${redactor.scrub(url)}: ${reason}`);
      void options.mainPage()?.close().catch(() => undefined);
    }
  });

}

/**
 * Page guards, installed once the main page exists: any other page is a popup (window.open,
 * target=_blank) and is closed at once, unless a click that opened it holds it (`tabs`, which may
 * make it the page the task continues in: follow()); dialogs are dismissed; every download, on
 * every page, goes to `onDownload` (the attempt's DownloadKeeper, which keeps it or refuses it).
 */
export function guardPages(context: BrowserContext, mainPage: Page, state: AttemptState, onDownload: (download: Download) => void, tabs?: NewTabs): { follow(page: Page): void } {
  let current = mainPage;
  const guardPage = (page: Page) => {
    page.on("dialog", (dialog) => {
      state.network.dialogsDismissed += 1;
      void dialog.dismiss().catch(() => undefined);
    });
    page.on("download", (download) => {
      tabs?.noteDownload();
      onDownload(download);
    });
  };
  const trackUrl = (page: Page) =>
    page.on("framenavigated", (frame) => {
      if (page === current && frame === page.mainFrame()) state.lastUrl = frame.url();
    });
  guardPage(mainPage);
  trackUrl(mainPage);
  context.on("page", (page) => {
    if (page === current) return;
    guardPage(page);
    if (tabs?.hold(page) === true) return;
    state.network.popupsClosed += 1;
    void page.close().catch(() => undefined);
  });
  return {
    follow: (page) => {
      current = page;
      state.lastUrl = page.url();
      trackUrl(page);
    },
  };
}

/** One fetched hop of a navigation: its status, where it redirects, and how to hand it to the browser. */
interface FetchedHop {
  status: number;
  location: string | undefined;
  fulfill(route: Route): Promise<void>;
}

/**
 * How errand fetches a navigation's hops itself: through the session's own capped fetcher when the
 * provider has one (local: via the egress proxy, body streamed and capped), otherwise through
 * Playwright's request client (cloud), which holds the whole body in memory.
 */
function hopFetcher(context: BrowserContext, options: GuardOptions): { first(route: Route, request: Request): Promise<FetchedHop>; next(url: string, request: Request): Promise<FetchedHop> } {
  const fetchDocument = options.fetchDocument;
  if (fetchDocument === undefined) {
    const wrap = (response: APIResponse): FetchedHop => ({ status: response.status(), location: response.headers()["location"], fulfill: (route) => route.fulfill({ response }) });
    return {
      first: async (route) => wrap(await route.fetch({ maxRedirects: 0 })),
      // The context's request client shares its cookies, so the probe sees what the browser would.
      next: async (url) => wrap(await context.request.get(url, { maxRedirects: 0, failOnStatusCode: false })),
    };
  }
  const send = async (url: string, request: Request, method: string, body: Buffer | null): Promise<FetchedHop> => {
    const headers = await request.allHeaders();
    const cookies = await context.cookies(url);
    if (cookies.length > 0) headers["cookie"] = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
    else delete headers["cookie"];
    const response = await fetchDocument({ url, method, headers, body });
    const grouped: Record<string, string> = {};
    for (const { name, value } of response.headers) {
      const key = name.toLowerCase();
      grouped[key] = grouped[key] === undefined ? value : `${grouped[key]}${key === "set-cookie" ? "\n" : ", "}${value}`;
    }
    return { status: response.status, location: grouped["location"], fulfill: (route) => route.fulfill({ status: response.status, headers: grouped, body: response.body }) };
  };
  return {
    first: (_route, request) => send(request.url(), request, request.method(), request.postDataBuffer()),
    next: (url, request) => send(url, request, "GET", null),
  };
}

/**
 * Fetches a main-frame navigation without following redirects, so each Location can be checked
 * before the browser sends anything to it. GET hops are walked ahead (bounded) because the
 * browser follows a fulfilled redirect without consulting route() again; a method-preserving
 * redirect of a write (307/308) is not walked ahead, since that would send the write twice. A
 * document past ERRAND_MAX_DOCUMENT_BYTES fails the step with document_too_large.
 */
async function followNavigation(
  context: BrowserContext,
  route: Route,
  request: Request,
  options: GuardOptions,
  block: (route: Route, request: Request, code: string, reason: string, kind: "navigation") => Promise<void>,
): Promise<void> {
  const fetcher = hopFetcher(context, options);
  let response: FetchedHop;
  try {
    response = await fetcher.first(route, request);
  } catch (error) {
    return abortFetch(route, request, options, error);
  }
  if (REDIRECT_STATUSES.has(response.status)) {
    let hopUrl = request.url();
    let hopResponse = response;
    let method = request.method().toUpperCase();
    for (let hop = 0; hop < MAX_REDIRECTS; hop += 1) {
      const location = hopResponse.location;
      if (location === undefined) break;
      const next = new URL(location, hopUrl).href;
      const verdict = options.guard.checkRequest(next);
      const allowed = verdict.allowed && options.hostAllowed(next);
      if (!allowed) {
        const code = verdict.allowed ? "navigation_blocked" : verdict.code;
        const reason = verdict.allowed ? `redirect to ${hostOf(next)} leaves the task's hosts` : verdict.reason;
        flagFor(request, options)(options.state, code, REFUSED_REDIRECT, `${options.redactor.scrub(next)}: ${reason}`);
        return block(route, request, code, reason, "navigation");
      }
      const status = hopResponse.status;
      if (status === 307 || status === 308) {
        if (!isReadOnlyMethod(method)) break;
      } else {
        method = "GET";
      }
      const probe = await fetcher.next(next, request).catch(() => null);
      if (probe === null || !REDIRECT_STATUSES.has(probe.status)) break;
      hopUrl = next;
      hopResponse = probe;
    }
  }
  return response.fulfill(route).catch(() => undefined);
}

/** A navigation errand could not fetch: too large (a document, or a download) fails the step with its code; anything else is a network failure. */
function abortFetch(route: Route, request: Request, options: GuardOptions, error: unknown): Promise<void> {
  if (error instanceof DocumentFetchError && error.reason === "document_too_large") {
    const reason = error.message;
    flagFor(request, options)(options.state, "document_too_large", `The page was not loaded: ${reason}. error.detail has its address.`, options.redactor.scrub(request.url()));
    options.state.recordBlocked({ url: options.redactor.scrub(request.url()), method: request.method(), resourceType: request.resourceType(), code: "document_too_large", reason }, "navigation");
    return route.abort("blockedbyclient").catch(() => undefined);
  }
  if (error instanceof DocumentFetchError && error.reason === "download_too_large") {
    flagNavigation(options.state, "download_too_large", `A download was refused: ${error.message}; nothing of it was kept.`, options.redactor.scrub(request.url()));
    options.refuseOversizeDownload?.();
    return route.abort("blockedbyclient").catch(() => undefined);
  }
  return route.abort("failed").catch(() => undefined);
}

/**
 * Sends a request that carries a typed secret (to one of that secret's own sites) hop by hop: each
 * redirect is fetched without following, and its Location is checked before anything is sent
 * there. A method-preserving redirect (307/308) would re-send the body, so errand follows it itself
 * only to a destination the secret is bound to (and the network policy allows); any other redirect
 * is handed to the browser, which follows it with a GET and no body, after the Location was checked
 * for the secret. A 307/308 chain errand followed is fulfilled as the first URL's response.
 */
async function followSecretBearing(
  route: Route,
  request: Request,
  navigation: boolean,
  options: GuardOptions,
  block: (route: Route, request: Request, code: string, reason: string, kind: "policy" | "navigation" | "secret") => Promise<void>,
): Promise<void> {
  const base = await describeRequest(request);
  let current = request.url();
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    let response;
    try {
      response = await route.fetch({ maxRedirects: 0, ...(current === request.url() ? {} : { url: current }) });
    } catch {
      return route.abort("failed").catch(() => undefined);
    }
    const location = REDIRECT_STATUSES.has(response.status()) ? response.headers()["location"] : undefined;
    if (location === undefined) return route.fulfill({ response }).catch(() => undefined);
    const next = new URL(location, current).href;
    const preserving = response.status() === 307 || response.status() === 308;
    const leaked = options.secretEgress.leak(preserving ? { ...base, url: next } : { url: next });
    const verdict = options.guard.checkRequest(next);
    const offHost = navigation && !options.hostAllowed(next);
    if (leaked !== null || !verdict.allowed || offHost) {
      const code = leaked !== null ? "secret_egress_blocked" : verdict.allowed ? "navigation_blocked" : verdict.code;
      const reason = leaked !== null ? `a redirect would carry the secret ${leaked} to ${originOf(next)}, which that secret is not bound to` : verdict.allowed ? `redirect to ${hostOf(next)} leaves the task's hosts` : verdict.reason;
      if (navigation) flagFor(request, options)(options.state, code, REFUSED_REDIRECT, `${options.redactor.scrub(next)}: ${reason}`);
      return block(route, request, code, reason, leaked !== null ? "secret" : navigation ? "navigation" : "policy");
    }
    options.requestJudged?.(next);
    if (!preserving) {
      // The browser follows this one with a GET; give it an absolute Location, since errand may have followed earlier hops itself.
      return route.fulfill({ response, headers: { ...response.headers(), location: next } }).catch(() => undefined);
    }
    current = next;
  }
  return block(route, request, "navigation_blocked", `more than ${MAX_REDIRECTS} redirects`, navigation ? "navigation" : "policy");
}

/** The parts of a request a secret could ride in: URL, every header (cookies included) and the body. */
async function describeRequest(request: Request): Promise<{ url: string; headers: Record<string, string>; body: Buffer | null }> {
  const headers = await request.allHeaders().catch(() => request.headers());
  return { url: request.url(), headers, body: request.postDataBuffer() };
}


/**
 * True for a top-level navigation: the main page's, or a popup's (window.open, target=_blank links
 * and forms). A navigation whose frame does not exist yet is a new page's first request, which is
 * a popup's by definition, so it is judged as top-level too: it is stopped before it is sent.
 */
function isMainFrameNavigation(request: Request): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    return request.frame().parentFrame() === null;
  } catch {
    return true;
  }
}

/** The page a request belongs to, or null when its frame does not exist yet (a new page's first request). */
function pageOf(request: Request): Page | null {
  try {
    return request.frame().page();
  } catch {
    return null;
  }
}

/**
 * How a refused top-level navigation is recorded: the driven page's stops the task (flagNavigation);
 * another tab's is only counted, and stops the task when a step needs that tab (NewTabs.settle).
 */
function flagFor(request: Request, options: GuardOptions): typeof flagNavigation {
  return isPopupNavigation(request, options.mainPage()) ? () => undefined : flagNavigation;
}

/** A top-level navigation of a page other than the one the task drives: a new tab's or a popup's. */
function isPopupNavigation(request: Request, mainPage: Page | null): boolean {
  return mainPage !== null && pageOf(request) !== mainPage;
}

const REFUSED_REDIRECT = "A redirect would take the page to an address it may not reach; nothing was sent there. error.detail has the address and why.";

/**
 * Records the first navigation the guards stopped. The message is errand's own words; the address
 * (page-chosen: its host, path and query can spell anything) and the reason naming it go to
 * `detail`, which reaches the receipt inside the untrusted wrapper as error.detail.
 */
export function flagNavigation(state: AttemptState, code: string, message: string, detail: string): void {
  if (state.navigationViolation === null) state.navigationViolation = { code, message, detail };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an unparseable address";
  }
}
