import type { Context, Hono } from "hono";
import { HANDOFF_KEYS, LoginHandoffError } from "../../../executor/loginHandoff.js";
import type { HandoffKey } from "../../../executor/loginHandoff.js";
import { isSiteName } from "../../../task/siteName.js";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { HANDOFF_SCRIPT, siteLoginPage } from "./siteLoginPages.js";
import type { OwnerSession } from "./ownerSessions.js";
import { sameToken } from "./ownerSessions.js";

/** What the console's routes share with these: its session, login page and form reader. */
export interface ConsoleTools {
  session(c: Context): OwnerSession | undefined;
  showLogin(c: Context, next: string, message?: string, status?: number): Response;
  readForm(c: Context): Promise<URLSearchParams | Response>;
}

/** The live page's policy: errand's own script, frames as blob: images, requests to errand only. */
const LIVE_PAGE_CSP =
  "default-src 'none'; script-src 'self'; img-src 'self' blob:; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
const NO_STORE = { "cache-control": "no-store", "referrer-policy": "same-origin", "x-content-type-options": "nosniff" };

function json(body: Record<string, unknown>, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...NO_STORE } });
}

const GONE = "This login browser is closed (Done, Cancel, or its ERRAND_LOGIN_TTL ran out). Open the site's login page again from the owner console.";

/**
 * The live login handoff at /owner/sites/NAME/login: the page (GET, owner session) and its calls
 * (POST start, frame, tap, type, key, done, cancel; each with the owner session, errand's own
 * Origin and the session's CSRF token). The browser itself is src/executor/loginHandoff.ts.
 */
export function siteLoginRoutes(owner: Hono<AppEnv>, deps: AppDeps, tools: ConsoleTools): void {
  const handoffs = deps.loginHandoffs;

  owner.get("/sites/handoff.js", () => new Response(HANDOFF_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8", ...NO_STORE } }));

  owner.get("/sites/:name/login", (c) => {
    const name = c.req.param("name");
    const live = tools.session(c);
    if (live === undefined)
      return tools.showLogin(c, isSiteName(name) ? `/owner/sites/${name}/login` : "/owner", "Log in as the owner to open a site's login page.", 401);
    if (!isSiteName(name) || handoffs === undefined) return json({ ok: false, message: "No such site login page." }, 404);
    const body = siteLoginPage(live.csrf, name, { width: 390, height: 700 }, Math.round(handoffs.ttlMs / 60_000));
    return new Response(body, { headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": LIVE_PAGE_CSP, ...NO_STORE } });
  });

  /** The owner session, errand's own Origin and the CSRF token, or the refusal. */
  const checked = async (c: Context): Promise<{ name: string; form: URLSearchParams } | Response> => {
    const live = tools.session(c);
    if (live === undefined) return json({ ok: false, message: "Log in to the owner console first; nothing was done." }, 401);
    const form = await tools.readForm(c);
    if (form instanceof Response) return json({ ok: false, message: "This request did not come from errand's own page; nothing was done." }, form.status);
    if (!sameToken(form.get("csrf") ?? "", live.csrf))
      return json({ ok: false, message: "This request did not come from the page errand showed you; nothing was done." }, 403);
    const name = c.req.param("name") ?? "";
    if (!isSiteName(name) || handoffs === undefined) return json({ ok: false, message: "No such site." }, 404);
    return { name, form };
  };

  const withHandoff =
    (action: (handoff: NonNullable<ReturnType<NonNullable<typeof handoffs>["get"]>>, form: URLSearchParams, name: string) => Promise<Response>) =>
    async (c: Context) => {
      const request = await checked(c);
      if (request instanceof Response) return request;
      const handoff = handoffs?.get(request.name);
      if (handoff === undefined) return json({ ok: false, message: GONE }, 410);
      try {
        return await action(handoff, request.form, request.name);
      } catch (error) {
        if (error instanceof LoginHandoffError) return json({ ok: false, message: error.message }, 410);
        // The browser's own words may quote the page: not repeated.
        return json({ ok: false, message: "errand's browser did not do that; try again." }, 502);
      }
    };

  owner.post("/sites/:name/login/start", async (c) => {
    const request = await checked(c);
    if (request instanceof Response || handoffs === undefined) return request as Response;
    try {
      const started = await handoffs.start(request.name);
      if (started === null) return json({ ok: false, message: `No site named ${request.name} is set up (errand site add).` }, 404);
      if (started === "busy") return json({ ok: false, message: "Too many login browsers are open; finish one first." }, 429);
      deps.logger.info("Owner opened a site's login browser", { site: request.name });
      return json({
        ok: true,
        expiresAt: new Date(started.expiresMs).toISOString(),
        message: `Log in on the page below, then tap Done. This browser closes at ${new Date(started.expiresMs).toISOString().slice(11, 16)} UTC.`,
      });
    } catch (error) {
      const message = error instanceof LoginHandoffError ? error.message : "errand could not open its browser for this site.";
      deps.logger.warn("A site's login browser did not open", { site: request.name });
      return json({ ok: false, message }, 502);
    }
  });

  owner.post(
    "/sites/:name/login/frame",
    withHandoff(async (handoff) => new Response(new Uint8Array(await handoff.frame()), { headers: { "content-type": "image/jpeg", ...NO_STORE } })),
  );
  owner.post(
    "/sites/:name/login/tap",
    withHandoff(async (handoff, form) => {
      const x = Number(form.get("x"));
      const y = Number(form.get("y"));
      if (!Number.isFinite(x) || !Number.isFinite(y)) return json({ ok: false, message: "A tap needs x and y." }, 400);
      await handoff.tap(x, y);
      return json({ ok: true });
    }),
  );
  owner.post(
    "/sites/:name/login/type",
    withHandoff(async (handoff, form) => {
      await handoff.type(form.get("text") ?? "");
      return json({ ok: true });
    }),
  );
  owner.post(
    "/sites/:name/login/key",
    withHandoff(async (handoff, form) => {
      const key = form.get("key") ?? "";
      if (!(HANDOFF_KEYS as readonly string[]).includes(key)) return json({ ok: false, message: `errand forwards only ${HANDOFF_KEYS.join(", ")}.` }, 400);
      await handoff.press(key as HandoffKey);
      return json({ ok: true });
    }),
  );
  owner.post(
    "/sites/:name/login/done",
    withHandoff(async (handoff, _form, name) => {
      const result = await handoff.done();
      if (result.saved) {
        await handoffs?.finish(name);
        await deps.access.recordRequest({ actor: "owner", via: "console", action: "site_login_saved", result: name });
        deps.logger.info("Owner saved a site's session from the console", { site: name });
      }
      return json({ ok: true, saved: result.saved, message: result.message });
    }),
  );
  owner.post("/sites/:name/login/cancel", async (c) => {
    const request = await checked(c);
    if (request instanceof Response) return request;
    await handoffs?.finish(request.name);
    return json({ ok: true, message: "Closed; nothing was saved." });
  });
}
