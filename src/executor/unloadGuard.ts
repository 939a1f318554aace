import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { judgeRequest, secretRuleReadsContent } from "./judgeRequest.js";
import type { CarriedContent, RefusedRequest, RequestRules, UnseenContent } from "./judgeRequest.js";

/** A request as the browser paused it, before it was sent. */
export interface PausedRequest {
  url: string;
  method: string;
  resourceType: string;
  headers: Record<string, string>;
  /** The body when the browser handed it over; null for none. */
  body: Buffer | null;
  /** True when the request has a body the browser did not hand over (too long to inline). */
  bodyWithheld: boolean;
  /** True for the page's own top-level navigation (a refusal then stops the page, as route()'s do). */
  topLevelNavigation: boolean;
}

/** Why a paused request was failed, for the receipt: judgeRequest's refusal (its rule picks the counter, as route()'s do). */
export type UnloadRefusal = RefusedRequest;

/** Decides each paused request: null lets it continue unchanged. */
export type UnloadJudge = (request: PausedRequest) => Promise<UnloadRefusal | null>;

/**
 * The request rules for the requests Playwright's route() never sees.
 *
 * When a document unloads (the page navigates away, by a goto step, a link or script), the
 * beacons and keepalive fetches its pagehide/unload/visibilitychange handlers send are still paused
 * by the DevTools Fetch domain, but they arrive without a `networkId` (the document's inspector is
 * gone) or from a frame Playwright no longer knows, and Playwright 1.65 continues such requests
 * without asking route(). So every rule route() applies to a request on its own must be applied
 * here again: over https the egress proxy sees neither a method nor a body. Before this guard 6 of
 * 6 read_only writes reached a TLS site, and a typed secret left in 11-12 unload-time requests to
 * another origin (a goto step and a link click alike).
 *
 * This guard is a second Fetch client on the page's own target: Chromium chains the interceptors,
 * so every request of the page (the unloading document's included) is paused here too, whatever
 * Playwright decided, and `judge` decides it again (unloadJudge: network policy, read_only method
 * rule, typed-secret egress). A refused request is failed (BlockedByClient) and reported; the rest
 * continue unchanged. If the guard cannot be installed, the page is closed: a page that needs it
 * never runs without it.
 */
export async function guardUnload(
  context: BrowserContext,
  page: Page,
  judge: UnloadJudge,
  onStopped: (request: PausedRequest, refusal: UnloadRefusal) => void,
): Promise<void> {
  try {
    const cdp = await context.newCDPSession(page);
    // A page target's id is its main frame's id: requests of that frame are its navigations.
    const { targetInfo } = await cdp.send("Target.getTargetInfo");
    await interceptRequests(cdp, targetInfo.targetId, judge, onStopped);
  } catch (error) {
    await page.close().catch(() => undefined);
    throw error;
  }
  // A cross-site iframe runs in its own target (an out-of-process iframe) with its own interceptor;
  // its unload-time writes escaped the page's guard (3 of 3 reached the site) until it got one too.
  // Even so, when its page navigates away that target is torn down around the unload and its pauses
  // are released unanswered (2-3 of 8 still left); on the local provider the read_only browser's
  // browser-wide stop (src/providers/local/browserWriteGuard.ts) catches those writes.
  // In-process frames have no target of their own: newCDPSession refuses them, the page's covers them.
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) return;
    void context
      .newCDPSession(frame)
      .then((cdp) => interceptRequests(cdp, null, judge, onStopped))
      .catch(() => undefined);
  });
}

/**
 * The rules route() applies to a request by itself, for guardUnload: judgeRequest with the
 * session's rules. The browser does not show a paused request's cookies, so they are read from the
 * context's jar when the typed-secret rule would read them; a body the browser withheld, or a jar
 * that cannot be read, is unseen content, refused toward any origin a typed secret is not bound to.
 */
export function unloadJudge(rules: RequestRules, context: BrowserContext): UnloadJudge {
  return async (request) => {
    const carries = secretRuleReadsContent(request.url, rules) ? await pausedContent(request, context) : { headers: request.headers, body: request.body };
    const verdict = judgeRequest({ url: request.url, method: request.method, navigation: request.topLevelNavigation, carries, via: "unload" }, rules);
    return verdict.allowed ? null : verdict;
  };
}

/** A paused request's headers with the context's cookies for its URL, and its body; unseen when either cannot be read. */
async function pausedContent(request: PausedRequest, context: BrowserContext): Promise<CarriedContent | UnseenContent> {
  if (request.bodyWithheld) return { unseen: "its body could not be read" };
  const cookies = await context.cookies(request.url).catch(() => null);
  if (cookies === null) return { unseen: "its cookies could not be read" };
  const headers = { ...request.headers };
  if (cookies.length > 0) headers["cookie"] = cookies.map((c) => `${c.name}=${c.value}`).join("; ");
  return { headers, body: request.body };
}

/** Pauses every request of the session's target: refused ones fail (BlockedByClient) and are reported; the rest continue unchanged. */
async function interceptRequests(
  cdp: CDPSession,
  mainFrameId: string | null,
  judge: UnloadJudge,
  onStopped: (request: PausedRequest, refusal: UnloadRefusal) => void,
): Promise<void> {
  cdp.on("Fetch.requestPaused", (event) => {
    const { requestId, request } = event;
    const entries = request.postDataEntries ?? [];
    const parts = entries.map((entry) => Buffer.from(entry.bytes ?? "", "base64"));
    const body = parts.length > 0 ? Buffer.concat(parts) : request.postData === undefined ? null : Buffer.from(request.postData, "utf8");
    const paused: PausedRequest = {
      url: request.url,
      method: request.method,
      resourceType: event.resourceType.toLowerCase(),
      headers: request.headers,
      body,
      bodyWithheld: request.hasPostData === true && body === null,
      topLevelNavigation: event.resourceType === "Document" && event.frameId === mainFrameId,
    };
    void judge(paused)
      .catch((): UnloadRefusal => ({ allowed: false, code: "internal_error", reason: "the request could not be judged", rule: "policy" }))
      .then(async (refusal) => {
        if (refusal === null) {
          await cdp.send("Fetch.continueRequest", { requestId });
          return;
        }
        // Counted once the browser confirms: a pause whose target is torn down (an unloading
        // out-of-process iframe) is released unanswered, and another interceptor (the local read_only
        // browser's own) may then stop and count that same request.
        await cdp.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" });
        onStopped(paused, refusal);
      })
      .catch(() => undefined);
  });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
}
