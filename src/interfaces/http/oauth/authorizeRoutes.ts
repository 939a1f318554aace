import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { OAuthClientRecord } from "../../../store/AccessStore.js";
import type { AppDeps } from "../httpDeps.js";
import { isClientIdUrl } from "./clientMetadataDocument.js";
import { lockedUntil } from "../ownerLockout.js";
import { readBoundedBody } from "../readBody.js";
import { verifyOwnerAttempt } from "../verifyOwnerAttempt.js";
import { busyPage, consentCsp, consentPage, errorPage, lockedPage, wrongPasswordMessage } from "./consentPage.js";
import { ownerSecretMark } from "./ownerPassword.js";
import type { PendingConsents } from "./pendingConsents.js";
import { withQuery } from "./redirectPolicy.js";
import { matchesResource } from "./resourceIndicator.js";
import { grantedScopes } from "./scopes.js";

const PKCE_CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * Consent pages use Referrer-Policy same-origin, not no-referrer: with no-referrer Chromium sends
 * "Origin: null" on the form post, and the Origin check could not tell errand's page from a
 * sandboxed attacker frame. Nothing is sent to other origins either way.
 */
function html(body: string, status: number, redirectUri?: string): Response {
  return new Response(body, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": consentCsp(redirectUri),
      "cache-control": "no-store",
      "referrer-policy": "same-origin",
    },
  });
}

function redirect(location: string): Response {
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

function cookieName(consentId: string): string {
  return `errand_consent_${consentId.slice(0, 12)}`;
}

/**
 * GET /authorize. Problems with the client or its redirect URI are shown on a page (never
 * redirected: the redirect target is not trusted yet); everything else goes back to the client as
 * an OAuth error. A valid request becomes a pending consent and the owner sees the consent page.
 */
export async function authorize(c: Context, deps: AppDeps, pending: PendingConsents): Promise<Response> {
  const q = (name: string) => c.req.query(name) ?? undefined;
  const clientId = q("client_id");
  let client: OAuthClientRecord | undefined;
  if (clientId !== undefined && deps.clientMetadata !== undefined && clientId.startsWith("https://")) {
    const resolved = await deps.clientMetadata(clientId);
    if (!resolved.ok) return html(errorPage("Client refused", `${resolved.reason} Nothing was sent anywhere.`), 400);
    client = resolved.client;
  } else {
    client = clientId === undefined ? undefined : await deps.access.readClient(clientId);
  }
  if (client === undefined)
    return html(errorPage("Unknown client", "This connection request names no client registered with this errand. Start again from ChatGPT."), 400);
  const asked = q("redirect_uri");
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
    return html(errorPage("Unknown redirect", "The request's redirect_uri is not one this client registered. Nothing was sent anywhere."), 400);
  }
  const state = q("state");
  const iss = deps.settings.publicOrigin;
  const fail = (error: string, description: string) => redirect(withQuery(redirectUri, { error, error_description: description, state, iss }));
  if (q("response_type") !== "code") return fail("unsupported_response_type", "Only response_type=code is supported.");
  const challenge = q("code_challenge");
  if (challenge === undefined || !PKCE_CHALLENGE.test(challenge)) return fail("invalid_request", "A PKCE code_challenge is required.");
  if (q("code_challenge_method") !== "S256") return fail("invalid_request", "code_challenge_method must be S256.");
  const resource = q("resource") ?? deps.settings.mcpResource;
  if (!matchesResource(resource, deps.settings)) return fail("invalid_target", `This server issues tokens only for ${deps.settings.mcpResource}.`);

  const now = (deps.clock ?? Date.now)();
  const address = deps.clientAddress(c);
  const locked = lockedUntil(await deps.access.readOwnerLockout(address), now);
  if (locked !== null) return html(lockedPage(locked), 429);
  const consent = pending.create(address, {
    clientId: client.clientId,
    clientName: client.clientName,
    verifiedHost: isClientIdUrl(client.clientId) ? new URL(client.clientId).host : undefined,
    redirectUri,
    codeChallenge: challenge,
    state,
    scopes: grantedScopes(q("scope")),
    resource: deps.settings.mcpResource,
    expiresMs: now + deps.settings.tokens.consentMs,
    // A stored password that cannot be read is refused when the answer is checked, not here.
    secretMark: await deps.ownerSecret().then(ownerSecretMark, () => undefined),
  });
  if (consent === undefined)
    return html(
      busyPage("Too many connection requests are waiting for an answer. Answer or let them expire (10 minutes), then start again from ChatGPT."),
      429,
    );
  setCookie(c, cookieName(consent.id), consent.csrf, {
    httpOnly: true,
    sameSite: "Strict",
    path: "/consent",
    secure: deps.settings.secureCookies,
    maxAge: Math.floor(deps.settings.tokens.consentMs / 1000),
  });
  const response = html(consentPage(consent, undefined), 200, redirectUri);
  for (const cookie of c.res.headers.getSetCookie()) response.headers.append("set-cookie", cookie);
  return response;
}

/**
 * POST /consent: the owner's answer. The request must come from errand's own page (Origin /
 * Sec-Fetch-Site), carry the form's CSRF token and the matching cookie, and name a live pending
 * consent. The attempt is counted for the client's address before the password is checked
 * (verifyOwnerAttempt): while that address is locked no password is even checked, a wrong one is
 * held back and locks the address at the threshold, and only the right one mints a single-use code.
 */
export async function answerConsent(c: Context, deps: AppDeps, pending: PendingConsents): Promise<Response> {
  const origin = c.req.header("origin");
  const site = c.req.header("sec-fetch-site");
  if ((origin !== undefined && origin !== deps.settings.publicOrigin) || (site !== undefined && site !== "same-origin")) {
    return html(errorPage("Refused", "This approval did not come from errand's own page."), 403);
  }
  if (!(c.req.header("content-type") ?? "").startsWith("application/x-www-form-urlencoded")) return html(errorPage("Refused", "Malformed approval."), 400);
  const body = await readBoundedBody(c.req.raw, deps.settings.limits.formBytes);
  if (!body.ok) return html(errorPage("Refused", "The form is too large."), 413);
  const form = new URLSearchParams(body.text);
  const consent = pending.get(form.get("request") ?? "");
  if (consent === undefined)
    return html(errorPage("Request expired", "This approval request expired or was already answered. Start the connection again from ChatGPT."), 400);
  const csrf = form.get("csrf") ?? "";
  const cookie = getCookie(c, cookieName(consent.id));
  if (csrf !== consent.csrf || cookie !== consent.csrf)
    return html(errorPage("Refused", "This approval did not come from the page errand showed you. Start again from ChatGPT."), 403);

  const iss = deps.settings.publicOrigin;
  if (form.get("decision") === "deny") {
    pending.delete(consent.id);
    await deps.access.recordRequest({ actor: "owner", via: "oauth", action: "consent_denied", result: consent.clientId });
    return redirect(withQuery(consent.redirectUri, { error: "access_denied", error_description: "The owner denied the request.", state: consent.state, iss }));
  }
  if (form.get("decision") !== "approve") return html(consentPage(consent, "Choose Approve or Deny."), 400, consent.redirectUri);

  const clock = deps.clock ?? Date.now;
  const attempt = await verifyOwnerAttempt(deps, deps.clientAddress(c), form.get("password") ?? "");
  switch (attempt.kind) {
    case "not_set":
      return html(errorPage("Not set up", "No owner password is set on this errand. Run: errand owner set-password"), 503);
    case "locked":
      return attempt.untilMs === null
        ? html(busyPage("Too many password attempts from your address are being checked at once. Nothing was approved; try again in a moment."), 429)
        : html(lockedPage(attempt.untilMs), 429);
    case "wrong":
      if (attempt.lockedUntilMs !== null) {
        pending.delete(consent.id);
        return html(lockedPage(attempt.lockedUntilMs), 429);
      }
      return html(
        consentPage(consent, `Wrong password; nothing was approved. ${wrongPasswordMessage(attempt, consent.secretMark !== attempt.secretMark)}`),
        401,
        consent.redirectUri,
      );
    case "right":
      break;
  }
  pending.delete(consent.id);
  const code = deps.hasher.mint("code");
  await deps.access.saveAuthorizationCode({
    codeHash: deps.hasher.hash("code", code),
    clientId: consent.clientId,
    redirectUri: consent.redirectUri,
    codeChallenge: consent.codeChallenge,
    scopes: consent.scopes,
    resource: consent.resource,
    expiresMs: clock() + deps.settings.tokens.codeMs,
    usedMs: null,
  });
  deps.logger.info("Owner approved an OAuth client", { clientId: consent.clientId });
  return redirect(withQuery(consent.redirectUri, { code, state: consent.state, iss }));
}
