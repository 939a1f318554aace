import type { Frame, Page } from "playwright-core";
import type { OutlineFrame } from "../receipt/outlineTypes.js";
import { untrusted } from "../receipt/untrustedText.js";
import { FRAME_DEPTH } from "../task/readStep.js";
import { FRAMES_SCRIPT } from "./outlineScript.js";
import type { RawFrame } from "./outlineScript.js";
import { OUTLINE_LIMITS, readRawOutline, shapeOutline, verifiedSelector } from "./pageOutline.js";

/** How long a look waits in all for iframes still at about:blank whose src names a web address. */
const SETTLE_MS = 2_000;
const POLL_MS = 100;
/** An origin is an address, page-chosen even on a task host (a wildcard admits any subdomain). */
const ORIGIN_CHARS = 200;

export interface FrameReading {
  /** The task's hosts, as a step's "frame" check decides them (createHostAllowlist). */
  onTaskHosts: (url: string) => boolean;
  scrub: (text: string) => string;
}

const isWeb = (url: string): boolean => /^https?:\/\//i.test(url);

function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? url.slice(0, ORIGIN_CHARS) : origin;
  } catch {
    return url.slice(0, ORIGIN_CHARS);
  }
}

/** The frame the iframe `selector` holds, reached as a step reaches it (stepFrame.ts); null when it is gone or not an iframe. */
async function contentFrameOf(root: Page | Frame, selector: string): Promise<Frame | null> {
  const handle = await root
    .locator(selector)
    .first()
    .elementHandle({ timeout: 1_000 })
    .catch(() => null);
  if (handle === null) return null;
  try {
    return await handle.contentFrame();
  } finally {
    await handle.dispose();
  }
}

/**
 * Lists a page's iframes for an assistant that must write a task: each with the "frame" a step
 * names to look inside it (selectors errand checked to match exactly one iframe, outermost first)
 * and its origin. A frame on one of the task's hosts is read like the page (its forms, fields and
 * buttons, with selectors checked inside it) and its own iframes are listed, down to the depth a
 * step's "frame" reaches; a frame anywhere else is listed by origin only: no script runs in it and
 * nothing is read from it or from what it holds. Frames that no checked selector reaches are left
 * out, as no step could name them. At most OUTLINE_LIMITS.frames in all.
 */
export async function readFrameOutlines(page: Page, reading: FrameReading): Promise<OutlineFrame[]> {
  const found: OutlineFrame[] = [];
  const settleBy = Date.now() + SETTLE_MS;
  const visit = async (root: Page | Frame, path: readonly string[]): Promise<void> => {
    const raws = await root.evaluate<RawFrame[]>(`(${FRAMES_SCRIPT})(${JSON.stringify({ frames: OUTLINE_LIMITS.frames })})`);
    for (const raw of raws) {
      if (found.length >= OUTLINE_LIMITS.frames) return;
      const selector = await verifiedSelector(root, raw.candidates);
      if (selector === null) continue;
      const frame = await contentFrameOf(root, selector);
      if (frame === null) continue;
      const fromSrc = isWeb(raw.src);
      while (fromSrc && frame.url() === "about:blank" && Date.now() < settleBy) await page.waitForTimeout(POLL_MS);
      const url = frame.url();
      const framePath = [...path, selector];
      const origin = (address: string) => untrusted(reading.scrub(originOf(address)), ORIGIN_CHARS);
      if (!isWeb(url)) {
        found.push({ frame: framePath, origin: origin(fromSrc ? raw.src : url), ...(fromSrc ? { loaded: false as const } : {}) });
        continue;
      }
      if (!reading.onTaskHosts(url)) {
        found.push({ frame: framePath, origin: origin(url) });
        continue;
      }
      // A frame that navigates or goes away while it is read is listed without its forms.
      const inside = await readRawOutline(frame).catch(() => null);
      const forms = inside === null ? [] : (await shapeOutline(frame, inside, reading.scrub)).forms;
      found.push({ frame: framePath, origin: origin(url), forms });
      if (framePath.length < FRAME_DEPTH) await visit(frame, framePath).catch(() => undefined);
    }
  };
  await visit(page, []);
  return found;
}
