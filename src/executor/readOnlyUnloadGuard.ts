import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { isReadOnlyMethod } from "../policy/readOnlyMethods.js";

/** One write this guard stopped, for the receipt. */
export interface StoppedWrite {
  url: string;
  method: string;
  resourceType: string;
}

/**
 * The method rule of a read_only task for the requests Playwright's route() never sees.
 *
 * When a document unloads (the page navigates away, by a goto step, a link or script), the
 * beacons and keepalive fetches its pagehide/unload/visibilitychange handlers send are still paused
 * by the DevTools Fetch domain, but they arrive without a `networkId` (the document's inspector is
 * gone) or from a frame Playwright no longer knows, and Playwright 1.65 continues such requests
 * without asking route(). Over https the egress proxy cannot see their method either, so 6 of 6
 * such writes reached a TLS site before this guard (a goto step and a link click alike; taking the
 * context offline with setOffline before the navigation did not stop one).
 *
 * This guard is a second Fetch client on the page's own target: Chromium chains the interceptors,
 * so every request of the page (the unloading document's included) is paused here too, whatever
 * Playwright decided. A method other than GET/HEAD/OPTIONS is failed (BlockedByClient) and counted;
 * everything else continues unchanged. If the guard cannot be installed, the page is closed: a
 * read_only page never runs without it.
 */
export async function guardReadOnlyUnload(context: BrowserContext, page: Page, onStopped: (write: StoppedWrite) => void): Promise<void> {
  try {
    await interceptWrites(await context.newCDPSession(page), onStopped);
  } catch (error) {
    await page.close().catch(() => undefined);
    throw error;
  }
  // A cross-site iframe runs in its own target (an out-of-process iframe) with its own interceptor;
  // its unload-time writes escaped the page's guard (3 of 3 reached the site) until it got one too.
  // Even so, when its page navigates away that target is torn down around the unload and its pauses
  // are released unanswered (2-3 of 8 still left); on the local provider the read_only browser's
  // browser-wide stop (src/providers/local/browserWriteGuard.ts) catches those.
  // In-process frames have no target of their own: newCDPSession refuses them, the page's covers them.
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) return;
    void context
      .newCDPSession(frame)
      .then((cdp) => interceptWrites(cdp, onStopped))
      .catch(() => undefined);
  });
}

/** Pauses every request of the session's target: writes fail (BlockedByClient) and are reported; the rest continue unchanged. */
async function interceptWrites(cdp: CDPSession, onStopped: (write: StoppedWrite) => void): Promise<void> {
  cdp.on("Fetch.requestPaused", (event) => {
    const { requestId, request, resourceType } = event;
    if (isReadOnlyMethod(request.method)) {
      void cdp.send("Fetch.continueRequest", { requestId }).catch(() => undefined);
      return;
    }
    // Counted once the browser confirms: a pause whose target is torn down (an unloading
    // out-of-process iframe) is released unanswered, and another interceptor (the local read_only
    // browser's own) may then stop and count that same request.
    void cdp
      .send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" })
      .then(() => onStopped({ url: request.url, method: request.method, resourceType: resourceType.toLowerCase() }))
      .catch(() => undefined);
  });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });
}
