import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { LOCKED_DOWN_CHROMIUM_ARGS } from "../../src/providers/local/chromiumLaunch.js";
import { findChromium } from "../../src/providers/local/findChromium.js";

/**
 * The browser the plain baselines run on: errand's own playwright-core (this file resolves it from
 * the project's node_modules, whatever folder the bench lives in), the Chromium errand would find,
 * the same locked-down switches, headless; no sandbox only as root, as errand does.
 */
export async function launchPlainChromium(): Promise<Browser> {
  const executablePath = findChromium(process.env);
  if (executablePath === null) throw new Error("no Chromium found (install Debian's chromium or set CHROME_PATH)");
  return chromium.launch({ executablePath, headless: true, args: [...LOCKED_DOWN_CHROMIUM_ARGS], chromiumSandbox: process.getuid?.() !== 0 });
}
