import type { Page } from "playwright-core";

/**
 * The baseline the benchmarks compare errand against: the demo read task's steps (demoReadTask)
 * written by hand in playwright-core, with the same waits and checks.
 */
export async function demoReadByHand(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/`, { waitUntil: "load" });
  await page.locator("#status").first().waitFor({ state: "visible" });
  await page.locator("#status").innerText();
  await page.locator("#owner").getAttribute("data-plan");
  if ((await page.locator("#title").innerText()).trim() !== "Library account") throw new Error("title");
  if (!(await page.locator("#status").innerText()).includes("all 3 books returned")) throw new Error("status");
  if (page.url() !== `${origin}/`) throw new Error("url");
}
