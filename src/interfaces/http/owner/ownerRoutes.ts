import { isSiteName } from "../../../task/siteName.js";
import { Hono } from "hono";
import type { Context } from "hono";
import { getCookie, setCookie, deleteCookie } from "hono/cookie";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import { lockedPage, wrongPasswordMessage } from "../oauth/consentPage.js";
import { readBoundedBody } from "../readBody.js";
import { randomId } from "../secretHasher.js";
import { verifyOwnerAttempt } from "../verifyOwnerAttempt.js";
import { approvalPage, dashboardPage, loginPage, messagePage, operationPage } from "./ownerPages.js";
import type { OwnerSession } from "./ownerSessions.js";
import { OwnerSessions, sameToken } from "./ownerSessions.js";
import { siteLoginRoutes } from "./siteLoginRoutes.js";
import { errorMessage } from "../../../errors/errorMessage.js";

const SESSION_COOKIE = "errand_owner";
const LOGIN_COOKIE = "errand_owner_login";
const OPERATION_ID = /^[0-9a-f-]{36}$/i;

/**
 * Every console answer: never cached, never framed, no scripts, forms post only here. Referrer
 * same-origin, so Chromium sends a real Origin on the form posts (see authorizeRoutes).
 */
/** How long "Approve and allow tasks like this" lets such tasks run unattended. */
const GRANT_FROM_APPROVAL_MS = 24 * 60 * 60 * 1000;

function html(body: string, status = 200): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      "referrer-policy": "same-origin",
    },
  });
}

function withCookies(c: Context, response: Response): Response {
  for (const cookie of c.res.headers.getSetCookie()) response.headers.append("set-cookie", cookie);
  return response;
}

function redirect(c: Context, location: string): Response {
  return withCookies(c, new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } }));
}

/**
 * The owner console at /owner on errand serve: the owner logs in with the owner password (the same
 * per-address lockout as the consent page), sees what waits for approval and recent receipts, and
 * approves or denies, each decision bound to the digest shown. Only a session cookie opens it:
 * bearer tokens (OAuth or API) are not looked at, so no token can approve by any route.
 * Every POST needs errand's own Origin (when sent) and the session's CSRF token.
 */
export function ownerRoutes(deps: AppDeps): Hono<AppEnv> {
  const clock = deps.clock ?? Date.now;
  const sessions = new OwnerSessions(deps.settings.ownerSession, clock);
  const owner = new Hono<AppEnv>();
  const cookieOptions = { httpOnly: true, sameSite: "Strict" as const, path: "/owner", secure: deps.settings.secureCookies };

  const session = (c: Context): OwnerSession | undefined => sessions.touch(getCookie(c, SESSION_COOKIE));

  const showLogin = (c: Context, next: string, message?: string, status = 200): Response => {
    const csrf = randomId(24);
    setCookie(c, LOGIN_COOKIE, csrf, { ...cookieOptions, maxAge: 600 });
    return withCookies(c, html(loginPage(csrf, next, message), status));
  };

  /** The form of a POST from errand's own page, or a refusal. */
  const readForm = async (c: Context): Promise<URLSearchParams | Response> => {
    const origin = c.req.header("origin");
    const site = c.req.header("sec-fetch-site");
    if ((origin !== undefined && origin !== deps.settings.publicOrigin) || (site !== undefined && site !== "same-origin")) {
      return html(messagePage("Refused", "This request did not come from errand's own page."), 403);
    }
    if (!(c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return html(messagePage("Refused", "Malformed form."), 400);
    const body = await readBoundedBody(c.req.raw, deps.settings.limits.formBytes);
    if (!body.ok) return html(messagePage("Refused", "The form is too large."), 413);
    return new URLSearchParams(body.text);
  };

  owner.get("/", async (c) => {
    const live = session(c);
    if (live === undefined) return showLogin(c, "/owner");
    await deps.service.expireApprovals();
    const [pending, recent, sites] = await Promise.all([
      deps.service.listOperations({ awaitingApproval: true, limit: 50 }),
      deps.service.listOperations({ limit: 20 }),
      deps.sites?.() ?? Promise.resolve([]),
    ]);
    return html(dashboardPage(live.csrf, pending, recent, sites));
  });

  owner.post("/login", async (c) => {
    const form = await readForm(c);
    if (form instanceof Response) return form;
    const nextRaw = form.get("next") ?? "/owner";
    const next = /^\/owner(\/[A-Za-z0-9/_-]*)?$/.test(nextRaw) ? nextRaw : "/owner";
    const cookie = getCookie(c, LOGIN_COOKIE) ?? "";
    if (!sameToken(form.get("csrf") ?? "", cookie)) return showLogin(c, next, "This login did not come from the page errand showed you; try again.", 403);
    const address = deps.clientAddress(c);
    const attempt = await verifyOwnerAttempt(deps, address, form.get("password") ?? "");
    switch (attempt.kind) {
      case "not_set":
        return html(messagePage("Not set up", "No owner password is set on this errand. Run: errand owner set-password"), 503);
      case "locked":
        return attempt.untilMs === null
          ? html(messagePage("Please wait", "Too many password attempts from your address are being checked at once; try again in a moment."), 429)
          : html(lockedPage(attempt.untilMs), 429);
      case "wrong":
        return attempt.lockedUntilMs === null
          ? showLogin(c, next, `Wrong password. ${wrongPasswordMessage(attempt, false)}`, 401)
          : html(lockedPage(attempt.lockedUntilMs), 429);
      case "right": {
        const { token } = sessions.create(address);
        deleteCookie(c, LOGIN_COOKIE, { path: "/owner" });
        setCookie(c, SESSION_COOKIE, token, cookieOptions);
        await deps.access.recordRequest({ actor: "owner", via: "console", action: "console_login", result: address });
        deps.logger.info("Owner logged in to the console", { address });
        return redirect(c, next);
      }
    }
  });

  owner.post("/logout", async (c) => {
    const live = session(c);
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (live !== undefined && sameToken(form.get("csrf") ?? "", live.csrf)) sessions.end(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: "/owner" });
    return redirect(c, "/owner");
  });

  const showOperation = async (c: Context, kind: "approval" | "operation"): Promise<Response> => {
    const id = c.req.param("operationId") ?? "";
    const live = session(c);
    if (live === undefined) return showLogin(c, OPERATION_ID.test(id) ? `/owner/${kind === "approval" ? "approvals" : "operations"}/${id}` : "/owner");
    if (!OPERATION_ID.test(id)) return html(messagePage("Not found", "No operation has that id."), 404);
    const item = await deps.service.operationItem(id);
    if ("ok" in item) return html(messagePage("Not available", item.message), item.code === "operation_not_found" ? 404 : 500);
    return html(kind === "approval" ? approvalPage(live.csrf, item, deps.ownerSites !== undefined) : operationPage(live.csrf, item));
  };
  owner.get("/approvals/:operationId", (c) => showOperation(c, "approval"));
  owner.get("/operations/:operationId", (c) => showOperation(c, "operation"));

  const decide = async (c: Context, approve: boolean): Promise<Response> => {
    const live = session(c);
    if (live === undefined)
      return html(messagePage("Log in first", "Only the owner, logged in with the owner password, can approve or deny. Nothing was changed."), 403);
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (!sameToken(form.get("csrf") ?? "", live.csrf))
      return html(messagePage("Refused", "This form did not come from the page errand showed you. Nothing was changed."), 403);
    const id = c.req.param("operationId") ?? "";
    const result = await deps.service.decideApproval(id, {
      approve,
      requestDigest: form.get("requestDigest") ?? "",
      decidedBy: `owner (console: ${live.address})`,
      via: "console",
    });
    if (!result.ok) return html(messagePage("Not changed", result.message), result.code === "operation_not_found" ? 404 : 409);
    // An approved task joins the queue; this server starts draining it now.
    if (result.outcome === "approved") void deps.queue.kick();
    deps.logger.info(approve ? "Owner approved a task in the console" : "Owner denied a task in the console", { operationId: result.handle.operationId });
    return redirect(c, `/owner/operations/${result.handle.operationId}`);
  };
  /**
   * Approve, and give a grant on the task's site for GRANT_FROM_APPROVAL_MS with the task's own
   * risk and secrets. What is granted is read from the stored task, never from the form.
   */
  owner.post("/approvals/:operationId/approve-and-allow", async (c) => {
    const live = session(c);
    if (live === undefined)
      return html(messagePage("Log in first", "Only the owner, logged in with the owner password, can approve or allow. Nothing was changed."), 403);
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (!sameToken(form.get("csrf") ?? "", live.csrf))
      return html(messagePage("Refused", "This form did not come from the page errand showed you. Nothing was changed."), 403);
    const ownerSites = deps.ownerSites;
    const id = c.req.param("operationId") ?? "";
    if (ownerSites === undefined || !OPERATION_ID.test(id))
      return html(messagePage("Not changed", "This errand gives no grants from the console. Nothing was changed."), 404);
    const item = await deps.service.operationItem(id);
    if ("ok" in item) return html(messagePage("Not available", item.message), item.code === "operation_not_found" ? 404 : 500);
    const description = item.approval?.description;
    const site = description?.site;
    const risk = description?.risk;
    if (description === undefined || site === undefined || (risk !== "reversible_write" && risk !== "consequential")) {
      return html(messagePage("Not changed", "Only a waiting write that names a site can be allowed on it. Nothing was changed."), 409);
    }
    const result = await deps.service.decideApproval(id, {
      approve: true,
      requestDigest: form.get("requestDigest") ?? "",
      decidedBy: `owner (console: ${live.address})`,
      via: "console",
    });
    if (!result.ok) return html(messagePage("Not changed", result.message), result.code === "operation_not_found" ? 404 : 409);
    void deps.queue.kick();
    try {
      const grant = await ownerSites.allow(site, { risk, secrets: description.secrets.map((secret) => secret.name), durationMs: GRANT_FROM_APPROVAL_MS });
      deps.logger.info("Owner approved a task and gave a grant in the console", { operationId: id, site, grant: grant.id });
    } catch (error) {
      return html(messagePage("Approved, not allowed", `The task was approved, but no grant was given: ${errorMessage(error)}`), 409);
    }
    return redirect(c, `/owner/operations/${result.handle.operationId}`);
  });

  owner.post("/sites/:site/revoke", async (c) => {
    const live = session(c);
    if (live === undefined)
      return html(messagePage("Log in first", "Only the owner, logged in with the owner password, can revoke. Nothing was changed."), 403);
    const form = await readForm(c);
    if (form instanceof Response) return form;
    if (!sameToken(form.get("csrf") ?? "", live.csrf))
      return html(messagePage("Refused", "This form did not come from the page errand showed you. Nothing was changed."), 403);
    if (deps.ownerSites === undefined) return html(messagePage("Not changed", "This errand gives no grants from the console."), 404);
    const site = c.req.param("site") ?? "";
    if (!isSiteName(site)) return html(messagePage("Not found", "No site has that name."), 404);
    const ended = await deps.ownerSites.revoke(site);
    deps.logger.info("Owner revoked a site's grants in the console", { site, grants: ended.length });
    return redirect(c, "/owner");
  });

  owner.post("/approvals/:operationId/approve", (c) => decide(c, true));
  owner.post("/approvals/:operationId/deny", (c) => decide(c, false));
  siteLoginRoutes(owner, deps, { session, showLogin, readForm });
  return owner;
}
