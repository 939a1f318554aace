import type { Page } from "playwright-core";
import { originMatchesSites } from "../secrets/secretSite.js";
import type { RevealedSecret } from "../secrets/secretTypes.js";
import type { FillSecretStep } from "../task/taskTypes.js";
import { StepFailure } from "./stepFailure.js";

/**
 * A declared secret as one attempt holds it: revealed once before the browser opened, as its value
 * or (a TOTP secret) as the way to compute the code of the moment.
 */
export type HeldSecret = RevealedSecret;

/**
 * Types a declared secret into the one element fill_secret's selector resolves to, only when the
 * frame that holds that element has an origin the secret is bound to. The origin is the browser's
 * own record of the frame's URL (not anything a page script can redefine); about:blank, srcdoc and
 * data: frames have no such origin and are refused. The element handle pins the document that was
 * checked: if the frame navigates in between, the handle is detached and nothing is typed.
 *
 * `beforeTyping` runs after the check and before the first keystroke, with the text about to be
 * typed: it crosses the mutation boundary (in a write task), teaches the redactor a TOTP code and
 * arms the egress guard, so nothing the page does with the value can leave before the guard knows
 * it. A TOTP code is computed here, at typing time, so it is as fresh as it can be.
 */
export async function typeSecret(
  page: Page,
  step: FillSecretStep,
  secret: HeldSecret,
  timeoutMs: number,
  beforeTyping: (text: string) => Promise<void>,
): Promise<void> {
  const handle = await page.locator(step.selector).elementHandle({ timeout: timeoutMs });
  try {
    const frame = await handle.ownerFrame();
    const frameUrl = frame?.url() ?? "";
    if (!originMatchesSites(frameUrl, secret.sites)) {
      throw new StepFailure(
        "secret_site_mismatch",
        `fill_secret did not type the secret ${secret.name}: the field is in a frame on ${describeOrigin(frameUrl)}, and the owner bound ${secret.name} only to ${secret.sites.join(", ")}. Nothing was typed.`,
      );
    }
    const text = secret.code === undefined ? secret.value : secret.code(Date.now());
    await beforeTyping(text);
    await handle.fill(text, { timeout: timeoutMs });
  } finally {
    await handle.dispose().catch(() => undefined);
  }
}

function describeOrigin(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? `a page without an origin of its own (${url.slice(0, 20)})` : origin;
  } catch {
    return "a page without an origin";
  }
}
