import type { BrowserContext, Page } from "playwright-core";
import { restrictSessionToSite } from "../sites/sessionScope.js";
import type { SavedSession } from "../sites/siteTypes.js";

/** The longest the logged-in check waits for its selector once the target has loaded. */
export const LOGGED_IN_WAIT_MS = 2_000;
/** The longest reading a site's session back out of the browser may take after the steps. */
export const SESSION_CAPTURE_MS = 5_000;

/**
 * Puts a site's saved session into a fresh context before its first page loads: the cookies, and the
 * local storage of each saved origin (Playwright writes it on a page of its own that never reaches
 * the network). Only the site's part of the state is ever handed in (restrictSessionToSite).
 */
export async function loadSiteSession(context: BrowserContext, session: SavedSession, origins: readonly string[]): Promise<void> {
  const kept = restrictSessionToSite(session, origins);
  await context.setStorageState({ cookies: kept.cookies, origins: kept.origins });
}

/** True when the logged-in selector is on the page within LOGGED_IN_WAIT_MS (bounded by the step's time). */
export async function showsLoggedIn(page: Page, selector: string, timeoutMs: number): Promise<boolean> {
  try {
    await page
      .locator(selector)
      .first()
      .waitFor({ state: "attached", timeout: Math.max(1, Math.min(LOGGED_IN_WAIT_MS, timeoutMs)) });
    return true;
  } catch {
    return false;
  }
}

/**
 * The context's session restricted to the site's origins (rotated cookies included), or null when
 * the browser cannot say within SESSION_CAPTURE_MS (lost, stopped): the saved session then stays as it was.
 */
export async function captureSiteSession(context: BrowserContext, origins: readonly string[]): Promise<SavedSession | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), SESSION_CAPTURE_MS);
  });
  const read = context
    .storageState()
    .then((state) =>
      restrictSessionToSite({ cookies: state.cookies, origins: state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage })) }, origins),
    )
    .catch(() => null);
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}
