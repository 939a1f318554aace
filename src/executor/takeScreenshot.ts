import { createHash } from "node:crypto";
import type { Locator, Page } from "playwright-core";

/**
 * The one home of errand's screenshots (a look's image and a task's evidence): the viewport only,
 * bounded in bytes, with fields masked by solid boxes (Playwright's mask) before any pixel leaves
 * the browser. PNG when it fits the cap; else JPEG at stepped-down qualities; else no image and
 * the reason. Never the full page: the viewport bounds the pixels, the cap bounds the bytes.
 */
export const SCREENSHOT_LIMITS = {
  /** Per image, in bytes. */
  maxBytes: 1024 * 1024,
  /** JPEG qualities tried in order once the PNG is over the cap. */
  jpegQualities: [70, 50, 30],
  /** Time for all tries of one screenshot together (milliseconds). */
  timeoutMs: 5_000,
  /** The colour of every mask box (magenta: never mistaken for page content in a pixel check). */
  maskColor: "#FF00FF",
} as const;

/**
 * "passwords": every password input, in every frame. "every_input": every form control, editable
 * region, frame and canvas of the page, for a task that typed a declared secret (the secret may sit
 * in a field of any type, in a frame errand cannot see into, or be drawn on a canvas, which the
 * text check in screenshotEvidence cannot read).
 */
export type ScreenshotMask = "passwords" | "every_input";

const PASSWORD_FIELDS = "input[type=password i]";
const EVERY_INPUT = "input, textarea, select, [contenteditable]:not([contenteditable=false i]), iframe, frame, object, embed, canvas";

export interface ScreenshotImage {
  mimeType: "image/png" | "image/jpeg";
  bytes: number;
  /** Hex SHA-256 of the image bytes. */
  sha256: string;
  image: Buffer;
}

/** One way to encode the viewport: PNG, or JPEG at a quality. */
export type ScreenshotEncoding = { type: "png" } | { type: "jpeg"; quality: number };

/** The encodings tried, in order: PNG, then each JPEG quality of SCREENSHOT_LIMITS. */
export const SCREENSHOT_ENCODINGS: readonly ScreenshotEncoding[] = [
  { type: "png" },
  ...SCREENSHOT_LIMITS.jpegQualities.map((quality) => ({ type: "jpeg" as const, quality })),
];

/** What was decided: the image (or why none), and each encoding tried with its size, in order. */
export type ScreenshotResult = ({ ok: true; shot: ScreenshotImage } | { ok: false; reason: string }) & {
  tried: { encoding: ScreenshotEncoding; bytes: number }[];
};

function masks(page: Page, mask: ScreenshotMask): Locator[] {
  if (mask === "every_input") return [page.locator(EVERY_INPUT)];
  // Password fields inside frames are masked too: each frame's own locator (Playwright masks across frames).
  return page.frames().map((frame) => frame.locator(PASSWORD_FIELDS));
}

function shape(image: Buffer, mimeType: ScreenshotImage["mimeType"]): ScreenshotImage {
  return { mimeType, bytes: image.length, sha256: createHash("sha256").update(image).digest("hex"), image };
}

export const OUT_OF_TIME_REASON = "The page could not be captured in time (closed, crashed or too slow); no screenshot was taken.";

/**
 * The size rule on its own: captures with each encoding in SCREENSHOT_ENCODINGS order and keeps the
 * first image of at most `maxBytes`; none fits → no image, and why. A capture that throws, or a
 * deadline passed before an image fits, ends it with the out-of-time reason. Takes no time itself,
 * so it is tested with made-up captures (test/executor/takeScreenshot.test.ts).
 */
export async function firstWithinCap(
  capture: (encoding: ScreenshotEncoding) => Promise<Buffer>,
  maxBytes: number,
  outOfTime: () => boolean,
): Promise<ScreenshotResult> {
  const tried: { encoding: ScreenshotEncoding; bytes: number }[] = [];
  try {
    for (const encoding of SCREENSHOT_ENCODINGS) {
      const image = await capture(encoding);
      tried.push({ encoding, bytes: image.length });
      if (image.length <= maxBytes) return { ok: true, shot: shape(image, encoding.type === "png" ? "image/png" : "image/jpeg"), tried };
    }
    if (outOfTime()) throw new Error("out of time");
  } catch {
    // The browser's words are not needed (and may quote the page): the reason is errand's.
    return { ok: false, reason: OUT_OF_TIME_REASON, tried };
  }
  return {
    ok: false,
    reason: `The screenshot is over ${maxBytes} bytes even as JPEG at quality ${SCREENSHOT_LIMITS.jpegQualities.at(-1)}; it was left out.`,
    tried,
  };
}

/** How long a capture waits for the page's load event before it masks and captures (milliseconds). */
const LOAD_WAIT_MS = 2_000;

/**
 * One masked viewport image within `maxBytes` (at most SCREENSHOT_LIMITS.maxBytes), or why there is
 * none, within `timeoutMs` (default SCREENSHOT_LIMITS.timeoutMs; callers that must hold to the 5 s
 * budget pass at most that).
 */
export async function takeScreenshot(page: Page, options: { mask: ScreenshotMask; maxBytes?: number; timeoutMs?: number }): Promise<ScreenshotResult> {
  const maxBytes = Math.min(options.maxBytes ?? SCREENSHOT_LIMITS.maxBytes, SCREENSHOT_LIMITS.maxBytes);
  const deadline = Date.now() + (options.timeoutMs ?? SCREENSHOT_LIMITS.timeoutMs);
  // Masks are taken from the frames the page has when the capture starts: a frame still loading
  // (a cross-site one comes late, in its own process) would be painted without its fields masked.
  // So wait for the page's load event, which waits for its frames, within a share of the budget;
  // a page that never finishes loading is captured as it is.
  await page.waitForLoadState("load", { timeout: Math.max(1, Math.min(LOAD_WAIT_MS, (deadline - Date.now()) / 2)) }).catch(() => undefined);
  const capture = (encoding: ScreenshotEncoding): Promise<Buffer> =>
    page.screenshot({
      mask: masks(page, options.mask),
      maskColor: SCREENSHOT_LIMITS.maskColor,
      animations: "disabled",
      fullPage: false,
      timeout: Math.max(1, deadline - Date.now()),
      ...encoding,
    });
  return firstWithinCap(capture, maxBytes, () => Date.now() >= deadline);
}
