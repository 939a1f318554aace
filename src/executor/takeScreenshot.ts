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
 * region and frame of the page, for a task that typed a declared secret (the secret may sit in a
 * field of any type, or in a frame errand cannot see into).
 */
export type ScreenshotMask = "passwords" | "every_input";

const PASSWORD_FIELDS = "input[type=password i]";
const EVERY_INPUT = "input, textarea, select, [contenteditable]:not([contenteditable=false i]), iframe, frame, object, embed";

export interface ScreenshotImage {
  mimeType: "image/png" | "image/jpeg";
  bytes: number;
  /** Hex SHA-256 of the image bytes. */
  sha256: string;
  image: Buffer;
}

export type ScreenshotResult = { ok: true; shot: ScreenshotImage } | { ok: false; reason: string };

function masks(page: Page, mask: ScreenshotMask): Locator[] {
  if (mask === "every_input") return [page.locator(EVERY_INPUT)];
  // Password fields inside frames are masked too: each frame's own locator (Playwright masks across frames).
  return page.frames().map((frame) => frame.locator(PASSWORD_FIELDS));
}

function shape(image: Buffer, mimeType: ScreenshotImage["mimeType"]): ScreenshotImage {
  return { mimeType, bytes: image.length, sha256: createHash("sha256").update(image).digest("hex"), image };
}

/** One masked viewport image within `maxBytes` (at most SCREENSHOT_LIMITS.maxBytes), or why there is none. */
export async function takeScreenshot(page: Page, options: { mask: ScreenshotMask; maxBytes?: number; timeoutMs?: number }): Promise<ScreenshotResult> {
  const maxBytes = Math.min(options.maxBytes ?? SCREENSHOT_LIMITS.maxBytes, SCREENSHOT_LIMITS.maxBytes);
  const deadline = Date.now() + Math.min(options.timeoutMs ?? SCREENSHOT_LIMITS.timeoutMs, SCREENSHOT_LIMITS.timeoutMs);
  const common = () => ({ mask: masks(page, options.mask), maskColor: SCREENSHOT_LIMITS.maskColor, animations: "disabled" as const, fullPage: false, timeout: Math.max(1, deadline - Date.now()) });
  try {
    const png = await page.screenshot({ ...common(), type: "png" });
    if (png.length <= maxBytes) return { ok: true, shot: shape(png, "image/png") };
    for (const quality of SCREENSHOT_LIMITS.jpegQualities) {
      const jpeg = await page.screenshot({ ...common(), type: "jpeg", quality });
      if (jpeg.length <= maxBytes) return { ok: true, shot: shape(jpeg, "image/jpeg") };
    }
    if (Date.now() >= deadline) throw new Error("out of time");
  } catch {
    // The browser's words are not needed (and may quote the page): the reason is errand's.
    return { ok: false, reason: "The page could not be captured in time (closed, crashed or too slow); no screenshot was taken." };
  }
  return { ok: false, reason: `The screenshot is over ${maxBytes} bytes even as JPEG at quality ${SCREENSHOT_LIMITS.jpegQualities.at(-1)}; it was left out.` };
}
