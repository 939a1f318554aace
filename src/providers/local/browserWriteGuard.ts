import type { Browser, BrowserContext, CDPSession } from "playwright-core";
import { isReadOnlyMethod } from "../../policy/readOnlyMethods.js";

/** One write the read_only browser refused to send. */
export interface BrowserStoppedWrite {
  at: string;
  url: string;
  method: string;
  /** DevTools' resource type, lower case ("ping" for a beacon, "xhr"/"fetch", "document", ...). */
  resourceType: string;
}

/** Where one context's stopped writes go, until its session is released. */
export type StoppedWriteSink = (write: BrowserStoppedWrite) => void;

export interface BrowserWriteGuard {
  /**
   * Creates a context through `create` (Playwright's browser.newContext) and sends the writes its
   * frames try to `sink` until `forget` is called. Creations are serialized: the new context is
   * recognised as the one browser context id that appeared while `create` ran.
   */
  adopt(create: () => Promise<BrowserContext>, sink: StoppedWriteSink): Promise<{ context: BrowserContext; forget(): void }>;
}

/** One adopted context: whom to tell, and a DevTools session per page to look its frames up. */
interface Owner {
  sink: StoppedWriteSink;
  pages: Set<CDPSession>;
}

/**
 * The read_only browser's write stop: one DevTools Fetch client on the *browser* target, enabled
 * before any context exists, which pauses every request of every context, frame and worker of
 * that browser. A method other than GET/HEAD/OPTIONS is failed (BlockedByClient); everything else
 * continues unchanged. Only the browser errand keeps for read_only sessions gets it: a write
 * session's browser must send its writes.
 *
 * Why the browser target: the per-target guard (src/executor/unloadGuard.ts) sits on the
 * page's target and each out-of-process iframe's, and a cross-site iframe's target is torn down
 * around its unload when its page navigates away; the pauses on it are then released unanswered,
 * so its unload-time beacons and keepalive POSTs went out (2-3 of them reached a TLS site in 9 of
 * 10 runs). The browser target outlives every page, and Chromium puts its interceptor on every URL
 * loader factory of the browser, whatever frame or worker asks for one.
 *
 * Attribution: a paused request names its frame. Target discovery maps every page, out-of-process
 * iframe and worker target to its browser context (kept after the target is gone, since unload
 * writes come late), and `adopt` maps browser contexts to sessions. A frame no target names (an
 * in-process subframe) belongs to the one adopted context if there is only one, else to the
 * context whose page's frame tree holds it; a frame found nowhere (gone already, or a request
 * Chromium makes outside any page) goes to `onBackground`. Either way the write was stopped; only
 * who is told differs.
 *
 * Throws if the interceptor cannot be installed: the caller must not use the browser then.
 */
export async function guardBrowserWrites(browser: Browser, onBackground: StoppedWriteSink): Promise<BrowserWriteGuard> {
  const cdp = await browser.newBrowserCDPSession();
  /** Target (page, iframe, worker) id to its browser context id. */
  const contextOfTarget = new Map<string, string>();
  /** Browser context id to the session that owns it. */
  const owners = new Map<string, Owner>();
  let creating: Promise<unknown> = Promise.resolve();

  const noteTarget = (info: { targetId: string; browserContextId?: string }) => {
    if (info.browserContextId !== undefined) contextOfTarget.set(info.targetId, info.browserContextId);
  };
  cdp.on("Target.targetCreated", ({ targetInfo }) => noteTarget(targetInfo));
  cdp.on("Target.targetInfoChanged", ({ targetInfo }) => noteTarget(targetInfo));

  const ownerOf = async (frameId: string): Promise<StoppedWriteSink> => {
    const contextId = contextOfTarget.get(frameId);
    if (contextId !== undefined) return owners.get(contextId)?.sink ?? onBackground;
    if (frameId === "") return onBackground;
    const open = [...owners.values()];
    if (open.length === 1 && open[0] !== undefined) return open[0].sink;
    for (const owner of open) {
      for (const page of owner.pages) {
        const tree = await page.send("Page.getFrameTree").catch(() => null);
        if (tree !== null && holdsFrame(tree.frameTree, frameId)) return owner.sink;
      }
    }
    return onBackground;
  };

  cdp.on("Fetch.requestPaused", ({ requestId, request, frameId, resourceType }) => {
    if (isReadOnlyMethod(request.method)) {
      void cdp.send("Fetch.continueRequest", { requestId }).catch(() => undefined);
      return;
    }
    // Reported once the browser confirms, so a request another interceptor already settled is not counted twice.
    const write = { at: new Date().toISOString(), url: request.url, method: request.method, resourceType: resourceType.toLowerCase() };
    void cdp
      .send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" })
      .then(async () => (await ownerOf(frameId))(write))
      .catch(() => undefined);
  });

  await cdp.send("Target.setDiscoverTargets", { discover: true });
  await cdp.send("Fetch.enable", { patterns: [{ urlPattern: "*", requestStage: "Request" }] });

  return {
    async adopt(create: () => Promise<BrowserContext>, sink: StoppedWriteSink) {
      const turn = creating.then(async () => {
        const before = new Set(await contextIds(cdp));
        const context = await create();
        const added = (await contextIds(cdp)).filter((id) => !before.has(id));
        return { context, contextId: added.length === 1 ? added[0] : undefined };
      });
      creating = turn.catch(() => undefined);
      const { context, contextId } = await turn;
      const owner: Owner = { sink, pages: new Set() };
      if (contextId !== undefined) owners.set(contextId, owner);
      // Only consulted for in-process subframes while several read_only sessions are open.
      context.on("page", (page) => {
        void context
          .newCDPSession(page)
          .then((session) => owner.pages.add(session))
          .catch(() => undefined);
      });
      return {
        context,
        forget() {
          // Its targets stay known (a late write of a released context goes to the background, not
          // to another session); the oldest entries go once the map passes MAX_KNOWN_TARGETS.
          if (contextId !== undefined) owners.delete(contextId);
          owner.pages.clear();
          for (const targetId of contextOfTarget.keys()) {
            if (contextOfTarget.size <= MAX_KNOWN_TARGETS) break;
            contextOfTarget.delete(targetId);
          }
        },
      };
    },
  };
}

/** Targets remembered across released sessions; a warm browser serves sessions for days. */
const MAX_KNOWN_TARGETS = 10_000;

interface FrameTree {
  frame: { id: string };
  childFrames?: FrameTree[];
}

function holdsFrame(tree: FrameTree, frameId: string): boolean {
  return tree.frame.id === frameId || (tree.childFrames ?? []).some((child) => holdsFrame(child, frameId));
}

async function contextIds(cdp: CDPSession): Promise<string[]> {
  const { browserContextIds } = await cdp.send("Target.getBrowserContexts");
  return browserContextIds;
}
