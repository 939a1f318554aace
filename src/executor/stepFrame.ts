import type { ElementHandle, Frame, Page } from "playwright-core";
import type { Step } from "../task/taskTypes.js";
import { StepFailure, firstLine, isTimeout } from "./stepFailure.js";

const POLL_MS = 100;

/**
 * Where a step's selector looks: the page, or the frame its "frame" selectors lead to (outermost
 * first). Every frame on the way must be on one of the task's hosts before anything in it is
 * touched: a frame elsewhere (or not yet loaded past about:blank within the step's time) fails the
 * step with navigation_blocked naming its origin, and nothing is waited for, typed or clicked in
 * it; an iframe selector that matches nothing within the step's time is a timeout naming that
 * selector (not the step's own, which was never looked for). Every locator of a selector step comes from the root this returns, so a step's waits and its
 * action look in the same frame.
 */
export async function stepRoot(
  step: Step,
  index: number,
  env: { page: Page; timeoutMs: number; onTaskHosts: (url: string) => boolean; scrub: (text: string) => string },
): Promise<Page | Frame> {
  const frames = step.frame;
  if (frames === undefined) return env.page;
  const deadline = Date.now() + env.timeoutMs;
  let root: Page | Frame = env.page;
  for (const [at, selector] of frames.entries()) {
    const remaining = () => Math.max(1, deadline - Date.now());
    const iframe: ElementHandle = await root
      .locator(selector)
      .first()
      .elementHandle({ timeout: remaining() })
      .catch((error: unknown): never => {
        if (!isTimeout(error)) throw error;
        // Named here: the step's own selector was never looked for, so its cause would mislead.
        const which = frames.length > 1 ? ` (frame ${at + 1} of ${frames.length})` : "";
        throw new StepFailure(
          "timeout",
          `Step ${index} (${step.action}) timed out after ${env.timeoutMs} ms: no iframe matches the frame selector ${JSON.stringify(selector)}${which}. A look at the page lists its frames with the frame to name.`,
          env.scrub(firstLine(error)),
        );
      });
    const frame = await iframe.contentFrame();
    await iframe.dispose();
    if (frame === null)
      throw new StepFailure("step_failed", `Step ${index} (${step.action}): the frame ${JSON.stringify(selector)} is not an iframe or frame element.`);
    while (frame.url() === "about:blank" && Date.now() < deadline) await env.page.waitForTimeout(POLL_MS);
    if (!/^https?:\/\//i.test(frame.url())) {
      // No page from the web: refused by the network policy, failed, still blank, or srcdoc; another host would not help.
      throw new StepFailure(
        "navigation_blocked",
        `Step ${index} (${step.action}): the frame ${JSON.stringify(selector)} holds no page from the web (it is at ${originOf(env.scrub(frame.url()))}: the browser refused or could not load its address, or it has none of its own); nothing was done in it. network.blocked lists what was refused.`,
      );
    }
    if (!env.onTaskHosts(frame.url())) {
      throw new StepFailure(
        "navigation_blocked",
        `Step ${index} (${step.action}): the frame ${JSON.stringify(selector)} is at ${originOf(env.scrub(frame.url()))}, which is not one of the task's hosts; nothing was done in it. Add its host to allowedHosts if it is meant.`,
      );
    }
    root = frame;
  }
  return root;
}

function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? url.slice(0, 100) : origin;
  } catch {
    return url.slice(0, 100);
  }
}
