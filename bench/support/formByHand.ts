import type { Page } from "playwright-core";

/**
 * The plain baseline of bench/assistant: the form task (fill the name, send, check the thank-you
 * line) written by hand in playwright-core, with the waits and the check errand's task makes.
 */
export async function formByHand(page: Page, origin: string, name: string): Promise<void> {
  await page.goto(`${origin}/form`, { waitUntil: "load" });
  await page.locator("#name").fill(name);
  await page.locator("#send").click();
  await page.waitForURL(/\/thanks/, { waitUntil: "load" });
  if ((await page.locator("#result").innerText()).trim() !== `Thanks, ${name}.`) throw new Error("result");
}
