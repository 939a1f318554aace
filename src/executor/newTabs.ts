import type { BrowserContext, CDPSession, Page } from "playwright-core";
import { StepFailure } from "./stepFailure.js";

const POLL_MS = 50;
/** How long a page the click asked the browser to open may take to appear, when the click did not name it (then). */
const OPENED_PAGE_MS = 5_000;
/** How long a needed new tab that shows no page may take to turn out a download. */
const DOWNLOAD_SAYS_MS = 1_000;

/** What a click's new tabs came to: the page to continue in (or null), and how many were closed. */
export interface NewTabOutcome {
  follow: Page | null;
  closed: number;
}

/**
 * The tabs and windows a click opens. Outside a click every new page is a popup and is closed at
 * once (guardPages). While a click runs, the pages it opens are held here instead, and when it
 * ends errand continues in the one new page on a task host: always when the click says
 * `then: "follow_new_tab"` (waiting for it within the step's time), and without it when the
 * browser reported the click opening a window (Page.windowOpen, read on the current page's own
 * DevTools session) and exactly one such page on a task host appeared. Every other held page is
 * closed. States: idle (pages are closed) → holding (a click runs) → idle (settle decided).
 */
export class NewTabs {
  private holding: Page[] | null = null;
  private windowOpens = 0;
  /** Downloads that started while a click ran (a tab whose navigation is a download shows no page). */
  private downloads = 0;
  private session: CDPSession | null = null;

  constructor(private readonly context: BrowserContext) {}

  /** Listens for the windows `page` asks to open. Without a DevTools session only a click that names then follows. */
  async watch(page: Page): Promise<void> {
    await this.session?.detach().catch(() => undefined);
    this.session = null;
    try {
      const session = await this.context.newCDPSession(page);
      session.on("Page.windowOpen", () => {
        if (this.holding !== null) this.windowOpens += 1;
      });
      await session.send("Page.enable");
      this.session = session;
    } catch {
      // No DevTools session (a provider that refuses one): automatic following is off, then still works.
    }
  }

  /** A click is about to run: pages opened from now on are held for settle(). */
  begin(): void {
    this.holding = [];
    this.windowOpens = 0;
    this.downloads = 0;
  }

  /** A download started on any page (the browser moves a new tab's download to its opener and closes the tab). */
  noteDownload(): void {
    if (this.holding !== null) this.downloads += 1;
  }

  /** Offered each new page; true when a click runs and the page is held for it, false when it is to be closed. */
  hold(page: Page): boolean {
    if (this.holding === null) return false;
    this.holding.push(page);
    return true;
  }

  /** The click failed: closes what it opened (returns how many) and stops holding. */
  async drop(): Promise<number> {
    const held = this.holding ?? [];
    this.holding = null;
    this.windowOpens = 0;
    for (const page of held) await page.close().catch(() => undefined);
    return held.length;
  }

  /**
   * Decides after the click: which held page to continue in, if any; closes the others. `wanted`
   * is the click's then: follow_new_tab, which fails the step when no new page on a task host
   * opened (navigation_blocked when the one that opened was elsewhere and closed).
   */
  async settle(options: { wanted: boolean; timeoutMs: number; onTaskHost: (url: string) => boolean }): Promise<NewTabOutcome> {
    const deadline = Date.now() + options.timeoutMs;
    const held = this.holding ?? [];
    try {
      // A page the browser was asked to open appears once its first navigation is answered (or refused).
      const expected = (): number => Math.max(this.windowOpens, options.wanted ? 1 : 0);
      const waitUntil = options.wanted ? deadline : Math.min(deadline, Date.now() + OPENED_PAGE_MS);
      while (held.length < expected() && Date.now() < waitUntil) await delay(POLL_MS);
      // A needed tab that shows no page may be a download: the browser reports it a moment after the tab appears.
      const showsNoPage = (page: Page) => page.isClosed() || !isHttp(page.url());
      const downloadBy = Math.min(deadline, Date.now() + DOWNLOAD_SAYS_MS);
      while (options.wanted && held.length > 0 && held.every(showsNoPage) && this.downloads === 0 && Date.now() < downloadBy) await delay(POLL_MS);
      const onHost = held.filter((page) => !page.isClosed() && isHttp(page.url()) && options.onTaskHost(page.url()));
      const follow = onHost.length === 1 && (options.wanted || this.windowOpens > 0) ? (onHost[0] ?? null) : null;
      let closed = 0;
      for (const page of held) {
        if (page === follow) continue;
        closed += 1;
        await page.close().catch(() => undefined);
      }
      if (options.wanted && follow === null) {
        if (onHost.length > 1)
          throw new StepFailure(
            "step_failed",
            `The click opened ${onHost.length} tabs on the task's hosts; then: follow_new_tab needs exactly one. They were closed.`,
          );
        if (held.length > 0 && held.every(showsNoPage) && this.downloads > 0) {
          throw new StepFailure(
            "step_failed",
            "The tab the click opened downloaded a file instead of showing a page, so there is no page to continue in (a file errand kept is in the receipt's artifacts); a link that downloads needs no then: follow_new_tab.",
          );
        }
        if (held.length > 0)
          throw new StepFailure(
            "navigation_blocked",
            "The click opened a tab outside the task's hosts (its target and allowedHosts); errand closed it and sent nothing there, and the step needed it. network.blocked lists the address.",
          );
        throw new StepFailure("step_failed", `The click opened no new tab within ${options.timeoutMs} ms; then: follow_new_tab needs one.`);
      }
      return { follow, closed };
    } finally {
      this.holding = null;
      this.windowOpens = 0;
      this.downloads = 0;
    }
  }
}

function isHttp(url: string): boolean {
  return url.startsWith("http://") || url.startsWith("https://");
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
