import type { Page } from "playwright-core";
import type { BrowserProvider, ProviderSession } from "../providers/providerTypes.js";
import type { SiteDefinition, SiteSessions } from "../sites/siteTypes.js";
import { sessionIsEmpty } from "../sites/sessionScope.js";
import { AttemptState } from "./attemptState.js";
import { createHostsAllowlist } from "./hostAllowlist.js";
import { guardPages, installGuards } from "./installGuards.js";
import type { NetworkGuard } from "./networkGuard.js";
import { Redactor } from "./redactor.js";
import { SecretEgressGuard } from "./secretEgressGuard.js";
import { captureSiteSession, showsLoggedIn } from "./siteBrowserSession.js";
import { ErrandError } from "../errors/errandError.js";

/** The live browser's viewport: a phone's width, so the login page lays out as it would on the owner's phone. */
export const HANDOFF_VIEWPORT = { width: 390, height: 700 } as const;
/** The keys the owner may send, besides typed text: nothing that opens browser UI or devtools. */
export const HANDOFF_KEYS = ["Enter", "Tab", "Backspace", "Escape", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"] as const;
export type HandoffKey = (typeof HANDOFF_KEYS)[number];
/** The most text one typing sends (a password, an MFA code, an e-mail address). */
export const HANDOFF_TEXT_CHARS = 512;
/** A frame is taken at most this often, however often the page asks (at most 4 frames a second). */
export const HANDOFF_FRAME_MS = 250;
const FRAME_QUALITY = 60;
const ACTION_MS = 5_000;

export interface LoginHandoff {
  readonly viewport: { width: number; height: number };
  /** The page as a JPEG (at most one new capture every HANDOFF_FRAME_MS; a faster caller gets the last one). */
  frame(): Promise<Buffer>;
  /** A tap at viewport coordinates (clamped to the viewport). */
  tap(x: number, y: number): Promise<void>;
  /** Text typed into whatever has focus on the page. */
  type(text: string): Promise<void>;
  press(key: HandoffKey): Promise<void>;
  /**
   * Checks the site's logged-in selector on the current page; when it is there (or the site has
   * none), saves the session through the site registry and closes. Otherwise stays open.
   */
  done(): Promise<{ saved: boolean; message: string }>;
  /** Releases the browser context; idempotent, never throws. */
  close(): Promise<void>;
  readonly closed: boolean;
}

export interface LoginHandoffOptions {
  provider: BrowserProvider;
  /** The operator's network policy; narrowed here to the site's hosts, as admission narrows it to a task's. */
  guard: NetworkGuard;
  site: SiteDefinition;
  /** Where the session is saved: the same port site tasks save through. */
  sites: SiteSessions;
  /** How long the browser may stay open (the handoff's lifetime). */
  budgetMs: number;
  signal?: AbortSignal;
}

export class LoginHandoffError extends ErrandError {}

/** The host (or leading-wildcard host pattern) of a site origin in secretSite form. */
function hostOfOrigin(origin: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]+\]|[^/:]+)(?::\d+)?\/?$/i.exec(origin);
  return (match?.[1] ?? "").toLowerCase();
}

/**
 * Opens a browser for the owner to log in to a site by hand, under the guards a task runs under:
 * the operator's network policy narrowed to the site's hosts and its login hosts (the provider's
 * egress proxy scoped to them too), top-level navigations held to them, the site-session egress
 * rule on the site's origins, popups closed, dialogs dismissed, downloads refused.
 */
export async function openLoginHandoff(options: LoginHandoffOptions): Promise<LoginHandoff> {
  const { site } = options;
  const originHosts = site.origins.map(hostOfOrigin).filter((host) => host !== "");
  const hosts = [...new Set([...originHosts, ...site.loginHosts])];
  const start = site.loginUrl ?? site.origins.find((origin) => !origin.includes("://*.")) ?? null;
  if (start === null)
    throw new LoginHandoffError(
      "invalid_site",
      `The site ${site.name} has no login URL and only wildcard origins: set one with errand site add ${site.name} --login-url URL.`,
    );
  const guard = options.guard.forTask(hosts);
  const verdict = await guard.preflight(start);
  if (verdict.href === null)
    throw new LoginHandoffError("network_blocked", `The site's login page ${verdict.url} is refused by the network policy: ${verdict.reason}`);
  const state = new AttemptState();
  const redactor = new Redactor();
  let session: ProviderSession | null = await options.provider.openSession({
    budgetMs: options.budgetMs,
    signal: options.signal ?? new AbortController().signal,
    scope: { hosts, readOnly: false },
  });
  let page: Page | null = null;
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    const held = session;
    session = null;
    if (held === null) return;
    await held.seal?.().catch(() => undefined);
    await held.release().catch(() => undefined);
  };
  try {
    const opened = session;
    const fetchDocument = opened.fetchDocument;
    await installGuards(opened.context, {
      rules: { guard, onTaskHosts: createHostsAllowlist([], hosts), readOnly: false, secretEgress: new SecretEgressGuard(), siteOrigins: site.origins },
      state,
      redactor,
      mainPage: () => page,
      // The owner's own hands are the approval: nothing here is a task's write.
      beforeMutationBoundary: () => Promise.resolve(),
      ...(fetchDocument === undefined ? {} : { fetchDocument }),
      ...(opened.requestJudged === undefined
        ? {}
        : { requestJudged: (url: string, stopped?: { code: string; reason: string }) => opened.requestJudged?.(url, stopped) }),
    });
    page = opened.page ?? (await opened.context.newPage());
    // The login page keeps nothing: a download there is cancelled and counted.
    guardPages(opened.context, page, state, (download) => {
      state.network.downloadsRefused += 1;
      void download.cancel().catch(() => undefined);
    });
    await page.setViewportSize(HANDOFF_VIEWPORT);
    // A page that fails to load still shows (the browser's error page); the owner may tap Done or wait it out.
    await page.goto(verdict.href, { timeout: 15_000 }).catch(() => undefined);
  } catch (error) {
    await close();
    throw error;
  }
  const live = (): Page => {
    if (closed || page === null || page.isClosed()) throw new LoginHandoffError("cancelled", "The login browser is closed.");
    return page;
  };

  let last: { at: number; image: Buffer } | null = null;
  /** The newest frame taken, kept across taps and typing (which make `last` stale). */
  let newest: Buffer | null = null;
  let capturing: Promise<Buffer> | null = null;
  const frame = (): Promise<Buffer> => {
    if (last !== null && Date.now() - last.at < HANDOFF_FRAME_MS) return Promise.resolve(last.image);
    const current = live();
    capturing ??= current
      .screenshot({ type: "jpeg", quality: FRAME_QUALITY, timeout: ACTION_MS, animations: "allow", caret: "initial" })
      .then((image) => {
        last = { at: Date.now(), image };
        newest = image;
        return image;
      })
      .catch((error: unknown) => {
        // A capture fails while the page is between documents (a login form's POST and its
        // redirects): the owner keeps seeing the newest frame until the next one can be taken.
        if (newest !== null && !closed && !current.isClosed()) return newest;
        throw error;
      })
      .finally(() => {
        capturing = null;
      });
    return capturing;
  };

  return {
    viewport: { ...HANDOFF_VIEWPORT },
    get closed() {
      return closed;
    },
    frame,
    async tap(x, y) {
      const clamp = (v: number, max: number) => Math.min(Math.max(0, Number.isFinite(v) ? v : 0), max - 1);
      await live().mouse.click(clamp(x, HANDOFF_VIEWPORT.width), clamp(y, HANDOFF_VIEWPORT.height));
      last = null;
    },
    async type(text) {
      await live().keyboard.insertText(text.slice(0, HANDOFF_TEXT_CHARS));
      last = null;
    },
    async press(key) {
      if (!HANDOFF_KEYS.includes(key)) throw new LoginHandoffError("invalid_enum", "That key is not one errand forwards.");
      await live().keyboard.press(key);
      last = null;
    },
    async done() {
      const current = live();
      if (site.loggedInSelector !== null && !(await showsLoggedIn(current, site.loggedInSelector, ACTION_MS))) {
        return {
          saved: false,
          message: `errand does not see the site's logged-in sign (${site.loggedInSelector}) on this page yet. Finish logging in (or open a page that shows it), then tap Done again.`,
        };
      }
      const opened = session;
      const captured = opened === null ? null : await captureSiteSession(opened.context, site.origins);
      if (captured === null || sessionIsEmpty(captured))
        return {
          saved: false,
          message: "The browser holds no cookies or storage for the site's origins yet, so there is nothing to save. Finish logging in, then tap Done again.",
        };
      await options.sites.saveSession(site, captured, "saved");
      await close();
      return {
        saved: true,
        message:
          site.loggedInSelector === null
            ? `Saved the session of ${site.name}. errand cannot check it is logged in (the site has no --logged-in selector).`
            : `Logged in: the session of ${site.name} is saved, sealed, for its origins only. Tasks naming the site now start logged in.`,
      };
    },
    close,
  };
}
