import type { BrowserContext, Page, Request, Route } from "playwright-core";
import type { AttemptState } from "./attemptState.js";
import type { NetworkGuard } from "./networkGuard.js";
import type { Redactor } from "./redactor.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
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
}

/**
 * Layer 2 of the network policy plus the page guards, on the whole context (so popups' first
 * requests are covered too): every request is checked; main-frame navigations must stay on the
 * task's hosts, including every redirect hop; read_only tasks send nothing but GET/HEAD/OPTIONS;
 * popups are closed, dialogs dismissed, downloads refused.
 */
export async function installGuards(context: BrowserContext, options: GuardOptions): Promise<void> {
  const { state, redactor } = options;

  const block = (route: Route, request: Request, code: string, reason: string, kind: "policy" | "method" | "navigation") => {
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
    const navigation = isMainFrameNavigation(request, options.mainPage());
    if (!verdict.allowed) {
      if (navigation) flagNavigation(state, verdict.code, `The browser was stopped from loading ${redactor.scrub(url)}: ${verdict.reason}`);
      return block(route, request, verdict.code, verdict.reason, navigation ? "navigation" : "policy");
    }
    if (navigation && !options.hostAllowed(url)) {
      const reason = `${hostOf(url)} is not the target's host or one of allowedHosts`;
      flagNavigation(state, "navigation_blocked", `The page tried to navigate to ${redactor.scrub(url)}; ${reason}.`);
      return block(route, request, "navigation_blocked", reason, "navigation");
    }
    const method = request.method().toUpperCase();
    if (!SAFE_METHODS.has(method)) {
      if (options.readOnly) {
        return block(route, request, "method_blocked", `${method} is not allowed in a read_only task`, "method");
      }
      await options.beforeMutationBoundary();
    }
    if (navigation) return followNavigation(context, route, request, options, block);
    return route.continue().catch(() => undefined);
  });

  await context.routeWebSocket(/.*/, (socket) => {
    const verdict = options.guard.checkRequest(socket.url().replace(/^ws/, "http"));
    if (!verdict.allowed) {
      state.recordBlocked({ url: redactor.scrub(socket.url()), method: "GET", resourceType: "websocket", code: verdict.code, reason: verdict.reason }, "policy");
      void socket.close({ code: 1008, reason: "blocked by errand network policy" }).catch(() => undefined);
      return;
    }
    socket.connectToServer();
  });

  // Redirect hops never reach route(); watch them here and stop the page if one breaks policy.
  context.on("request", (request) => {
    if (request.redirectedFrom() === null) return;
    const url = request.url();
    const verdict = options.guard.checkRequest(url);
    const navigation = isMainFrameNavigation(request, options.mainPage());
    const offHost = navigation && !options.hostAllowed(url);
    if (verdict.allowed && !offHost) return;
    const code = verdict.allowed ? "navigation_blocked" : verdict.code;
    const reason = verdict.allowed ? `redirect hop to ${hostOf(url)} leaves the task's hosts` : verdict.reason;
    state.recordBlocked({ url: redactor.scrub(url), method: request.method(), resourceType: request.resourceType(), code, reason }, navigation ? "navigation" : "policy");
    if (navigation) {
      flagNavigation(state, code, `A redirect took the page to ${redactor.scrub(url)}; ${reason}. The page was stopped.`);
      void options.mainPage()?.close().catch(() => undefined);
    }
  });

}

/**
 * Page guards, installed once the main page exists: any other page is a popup (window.open,
 * target=_blank) and is closed at once; dialogs are dismissed; downloads are refused.
 */
export function guardPages(context: BrowserContext, mainPage: Page, state: AttemptState): void {
  const guardPage = (page: Page) => {
    page.on("dialog", (dialog) => {
      state.network.dialogsDismissed += 1;
      void dialog.dismiss().catch(() => undefined);
    });
    page.on("download", (download) => {
      state.network.downloadsRefused += 1;
      void download.cancel().catch(() => undefined);
    });
  };
  guardPage(mainPage);
  mainPage.on("framenavigated", (frame) => {
    if (frame === mainPage.mainFrame()) state.lastUrl = frame.url();
  });
  context.on("page", (page) => {
    if (page === mainPage) return;
    state.network.popupsClosed += 1;
    void page.close().catch(() => undefined);
  });
}

/**
 * Fetches a main-frame navigation without following redirects, so each Location can be checked
 * before the browser sends anything to it. GET hops are walked ahead (bounded) because the
 * browser follows a fulfilled redirect without consulting route() again; a method-preserving
 * redirect of a write (307/308) is not walked ahead, since that would send the write twice.
 */
async function followNavigation(
  context: BrowserContext,
  route: Route,
  request: Request,
  options: GuardOptions,
  block: (route: Route, request: Request, code: string, reason: string, kind: "navigation") => Promise<void>,
): Promise<void> {
  let response;
  try {
    response = await route.fetch({ maxRedirects: 0 });
  } catch {
    return route.abort("failed").catch(() => undefined);
  }
  if (REDIRECT_STATUSES.has(response.status())) {
    let hopUrl = request.url();
    let hopResponse = response;
    let method = request.method().toUpperCase();
    for (let hop = 0; hop < MAX_REDIRECTS; hop += 1) {
      const location = hopResponse.headers()["location"];
      if (location === undefined) break;
      const next = new URL(location, hopUrl).href;
      const verdict = options.guard.checkRequest(next);
      const allowed = verdict.allowed && options.hostAllowed(next);
      if (!allowed) {
        const code = verdict.allowed ? "navigation_blocked" : verdict.code;
        const reason = verdict.allowed ? `redirect to ${hostOf(next)} leaves the task's hosts` : verdict.reason;
        flagNavigation(options.state, code, `A redirect would take the page to ${options.redactor.scrub(next)}; ${reason}. Nothing was sent there.`);
        return block(route, request, code, reason, "navigation");
      }
      const status = hopResponse.status();
      if (status === 307 || status === 308) {
        if (!SAFE_METHODS.has(method)) break;
      } else {
        method = "GET";
      }
      // The context's request client shares its cookies, so the probe sees what the browser would.
      const probe = await context.request.get(next, { maxRedirects: 0, failOnStatusCode: false }).catch(() => null);
      if (probe === null || !REDIRECT_STATUSES.has(probe.status())) break;
      hopUrl = next;
      hopResponse = probe;
    }
  }
  return route.fulfill({ response }).catch(() => undefined);
}

function isMainFrameNavigation(request: Request, mainPage: Page | null): boolean {
  if (!request.isNavigationRequest()) return false;
  try {
    const frame = request.frame();
    return frame.parentFrame() === null;
  } catch {
    // Requests from service workers have no frame; they are not navigations of ours.
    return mainPage === null;
  }
}

function flagNavigation(state: AttemptState, code: string, message: string): void {
  if (state.navigationViolation === null) state.navigationViolation = { code, message };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an unparseable address";
  }
}
