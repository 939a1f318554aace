import type { APIResponse, BrowserContext, Download, Page, Request, Route } from "playwright-core";
import { isReadOnlyMethod } from "../policy/readOnlyMethods.js";
import { DocumentFetchError } from "../providers/providerTypes.js";
import type { DocumentRequest, DocumentResponse } from "../providers/providerTypes.js";
import type { AttemptState } from "./attemptState.js";
import { blockedKind, judgeRequest } from "./judgeRequest.js";
import type { CarriedContent, RefusedRequest, RequestRule, RequestRules } from "./judgeRequest.js";
import { originOf } from "./originOf.js";
import type { Redactor } from "./redactor.js";
import type { NewTabs } from "./newTabs.js";

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** How many redirect hops a navigation may take before errand refuses it. */
const MAX_REDIRECTS = 10;

export interface GuardOptions {
  /**
   * The session's request rules (network policy, task hosts, read_only, typed secrets, a site's
   * origins): every hook below asks judgeRequest with them, which decides what goes and in what order.
   */
  rules: RequestRules;
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
  /** A navigation answered with a download past ERRAND_DOWNLOAD_MAX_BYTES, which errand stopped reading: counted as a refused download. */
  refuseOversizeDownload?: () => void;
}

/**
 * Layer 2 of the network policy plus the page guards, on the whole context (so popups' first
 * requests are covered too): every request, redirect hop and WebSocket (and each of its messages)
 * is judged by judgeRequest (main-frame navigations must stay on the task's hosts, read_only tasks
 * send nothing but GET/HEAD/OPTIONS, a typed secret goes only to its own sites); popups are closed,
 * dialogs dismissed; downloads go to the download keeper (guardPages).
 */
export async function installGuards(context: BrowserContext, options: GuardOptions): Promise<void> {
  const { state, redactor, rules } = options;

  const block = (route: Route, request: Request, code: string, reason: string, kind: "policy" | "method" | "navigation" | "secret") => {
    // A stopped navigation's host may hold a tunnel Chromium opened ahead of the request: refuse it too.
    if (kind === "navigation") options.requestJudged?.(request.url(), { code, reason });
    state.recordBlocked({ url: redactor.scrub(request.url()), method: request.method(), resourceType: request.resourceType(), code, reason }, kind);
    return route.abort("blockedbyclient").catch(() => undefined);
  };

  await context.route("**/*", async (route) => {
    const request = route.request();
    const url = request.url();
    const navigation = isMainFrameNavigation(request);
    // Headers (cookies included) and body are read once a secret is typed: before, no rule looks at them.
    const carries = rules.secretEgress.active ? await contentOf(request) : {};
    const verdict = judgeRequest({ url, method: request.method(), navigation, carries, via: "request" }, rules);
    if (!verdict.allowed) {
      // Another tab's navigation is refused all the same, but it stops the task only when a step needs that tab (NewTabs).
      // A refused write is counted, and the page goes on without it.
      if (navigation && verdict.rule !== "method")
        flagFor(request, options)(state, verdict.code, stoppedNavigationMessage(verdict), stoppedNavigationDetail(verdict, url, redactor));
      return block(route, request, verdict.code, verdict.reason, blockedKind(verdict.rule, navigation));
    }
    if (verdict.writes) await options.beforeMutationBoundary();
    // Announced before the browser (or errand) connects for it, so the proxy lets its tunnel through.
    options.requestJudged?.(url);
    // A request carrying a secret is sent by errand hop by hop, so no redirect can take it elsewhere.
    if (verdict.carriesSecret) return followSecretBearing(route, request, navigation, options, block);
    if (navigation) return followNavigation(context, route, request, options, block);
    return route.continue().catch(() => undefined);
  });

  await context.routeWebSocket(/.*/, (socket) => {
    const httpUrl = socket.url().replace(/^ws/, "http");
    const refuse = (verdict: RefusedRequest) => {
      state.recordBlocked(
        { url: redactor.scrub(socket.url()), method: "GET", resourceType: "websocket", code: verdict.code, reason: verdict.reason },
        blockedKind(verdict.rule, false),
      );
      void socket.close({ code: 1008, reason: SOCKET_CLOSED_BY[verdict.rule] }).catch(() => undefined);
    };
    // Once a secret is typed, no socket opens to an origin it is not bound to. The handshake carries
    // the browser's cookies for that URL, and the page may have just put the value in one: reading
    // the cookie jar here raced the page's own document.cookie write (seen once under load), and the
    // browser's real handshake is never shown to errand, so the origin alone decides.
    const handshake = judgeRequest(
      {
        url: httpUrl,
        method: "GET",
        navigation: false,
        carries: { unseen: "the socket's handshake carries the browser's cookies, which errand never sees" },
        via: "request",
      },
      rules,
    );
    if (!handshake.allowed) return refuse(handshake);
    options.requestJudged?.(socket.url());
    const server = socket.connectToServer();
    // Messages from the page are forwarded by hand, so each one is judged (a typed secret in it included).
    socket.onMessage((message) => {
      const verdict = judgeRequest(
        {
          url: httpUrl,
          method: "GET",
          navigation: false,
          carries: { body: typeof message === "string" ? message : Buffer.from(message) },
          via: "socket message",
        },
        rules,
      );
      if (!verdict.allowed) return refuse(verdict);
      server.send(message);
    });
  });

  // Redirect hops never reach route(); watch them here and stop the page if one breaks policy.
  context.on("request", (request) => {
    if (request.redirectedFrom() === null) return;
    const url = request.url();
    const navigation = isMainFrameNavigation(request);
    const popup = navigation && isPopupNavigation(request, options.mainPage());
    // A hop a site chose itself (its own redirect) that takes a typed secret elsewhere stops the page.
    const verdict = judgeRequest({ url, method: request.method(), navigation, carries: { body: request.postDataBuffer() }, via: "redirect" }, rules);
    // route() never sees a hop the browser follows; its tunnel waits for this (an allowed hop's host is admitted).
    if (verdict.allowed) return options.requestJudged?.(url);
    const { code, reason } = verdict;
    options.requestJudged?.(url, { code, reason });
    state.recordBlocked(
      { url: redactor.scrub(url), method: request.method(), resourceType: request.resourceType(), code, reason },
      blockedKind(verdict.rule, navigation),
    );
    if (popup) {
      void pageOf(request)
        ?.close()
        .catch(() => undefined);
    } else if (navigation) {
      flagNavigation(
        state,
        code,
        "A redirect took the page to an address it may not reach; the page was stopped. error.detail has the address and why.",
        `${redactor.scrub(url)}: ${reason}`,
      );
      void options
        .mainPage()
        ?.close()
        .catch(() => undefined);
    }
  });
}

/**
 * Page guards, installed once the main page exists: any other page is a popup (window.open,
 * target=_blank) and is closed at once, unless a click that opened it holds it (`tabs`, which may
 * make it the page the task continues in: follow()); dialogs are dismissed; every download, on
 * every page, goes to `onDownload` (the attempt's DownloadKeeper, which keeps it or refuses it).
 */
export function guardPages(
  context: BrowserContext,
  mainPage: Page,
  state: AttemptState,
  onDownload: (download: Download) => void,
  tabs?: NewTabs,
): { follow(page: Page): void } {
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
function hopFetcher(
  context: BrowserContext,
  options: GuardOptions,
): { first(route: Route, request: Request): Promise<FetchedHop>; next(url: string, request: Request): Promise<FetchedHop> } {
  const fetchDocument = options.fetchDocument;
  if (fetchDocument === undefined) {
    const wrap = (response: APIResponse): FetchedHop => ({
      status: response.status(),
      location: response.headers()["location"],
      fulfill: (route) => route.fulfill({ response }),
    });
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
    return {
      status: response.status,
      location: grouped["location"],
      fulfill: (route) => route.fulfill({ status: response.status, headers: grouped, body: response.body }),
    };
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
async function followNavigation(context: BrowserContext, route: Route, request: Request, options: GuardOptions, block: Block): Promise<void> {
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
      const status = hopResponse.status;
      const preserving = status === 307 || status === 308;
      if (!preserving) method = "GET";
      // errand's probe of the hop sends no body; the browser's own hop is judged again as it leaves (the request monitor).
      const verdict = judgeRequest({ url: next, method, navigation: true, carries: {}, via: "redirect" }, options.rules);
      if (!verdict.allowed) {
        flagFor(request, options)(options.state, verdict.code, REFUSED_REDIRECT, `${options.redactor.scrub(next)}: ${verdict.reason}`);
        return block(route, request, verdict.code, verdict.reason, blockedKind(verdict.rule, true));
      }
      if (preserving && !isReadOnlyMethod(method)) break;
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
    flagFor(request, options)(
      options.state,
      "document_too_large",
      `The page was not loaded: ${reason}. error.detail has its address.`,
      options.redactor.scrub(request.url()),
    );
    options.state.recordBlocked(
      { url: options.redactor.scrub(request.url()), method: request.method(), resourceType: request.resourceType(), code: "document_too_large", reason },
      "navigation",
    );
    return route.abort("blockedbyclient").catch(() => undefined);
  }
  if (error instanceof DocumentFetchError && error.reason === "download_too_large") {
    flagNavigation(
      options.state,
      "download_too_large",
      `A download was refused: ${error.message}; nothing of it was kept.`,
      options.redactor.scrub(request.url()),
    );
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
async function followSecretBearing(route: Route, request: Request, navigation: boolean, options: GuardOptions, block: Block): Promise<void> {
  const content = await contentOf(request);
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
    // A method-preserving redirect re-sends the body and headers; any other is followed with a bare GET.
    const verdict = judgeRequest(
      { url: next, method: preserving ? request.method() : "GET", navigation, carries: preserving ? content : {}, via: "redirect" },
      options.rules,
    );
    if (!verdict.allowed) {
      if (navigation) flagFor(request, options)(options.state, verdict.code, REFUSED_REDIRECT, `${options.redactor.scrub(next)}: ${verdict.reason}`);
      return block(route, request, verdict.code, verdict.reason, blockedKind(verdict.rule, navigation));
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

/** The parts of a request beside its URL a secret could ride in: every header (cookies included) and the body. */
async function contentOf(request: Request): Promise<CarriedContent> {
  const headers = await request.allHeaders().catch(() => request.headers());
  return { headers, body: request.postDataBuffer() };
}

/** Aborts a refused request and records it, counted by `kind` (blockedKind). */
type Block = (route: Route, request: Request, code: string, reason: string, kind: "policy" | "method" | "navigation" | "secret") => Promise<void>;

/** What the receipt says when a top-level navigation was refused, by the rule that refused it. */
export function stoppedNavigationMessage(verdict: RefusedRequest): string {
  switch (verdict.rule) {
    case "policy":
      return "The browser was stopped from loading an address the network policy refuses; error.detail has the address and why.";
    case "hosts":
      return "The page tried to navigate off the task's hosts (its target and allowedHosts); nothing was sent there. error.detail has the address.";
    case "site":
      return "The page tried to go to an origin outside the task's site on a host the site's cookies would be sent to; nothing was sent. error.detail has the address.";
    case "secret":
      return `The page tried to take the secret ${verdict.secret ?? "it typed"} to a site it is not bound to. Nothing was sent; error.detail has the address.`;
    case "method":
      return "The page tried to send a request other than GET in a read_only task; errand aborted it. error.detail has the address.";
  }
}

/** The refused navigation's page-chosen address for error.detail: with the policy's reason, or just the origin where that is all the rule judged. */
function stoppedNavigationDetail(verdict: RefusedRequest, url: string, redactor: Redactor): string {
  switch (verdict.rule) {
    case "policy":
      return `${redactor.scrub(url)}: ${verdict.reason}`;
    case "site":
    case "secret":
      return originOf(url);
    default:
      return redactor.scrub(url);
  }
}

/** Why errand closed a WebSocket, in its close frame, by the rule that refused it. */
const SOCKET_CLOSED_BY: Record<RequestRule, string> = {
  policy: "blocked by errand network policy",
  hosts: "blocked by errand network policy",
  site: "blocked by errand site session guard",
  secret: "blocked by errand secret egress guard",
  method: "blocked by errand read_only guard",
};

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
