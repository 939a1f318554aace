// Drives the consent page over plain HTTP the way a browser would (cookie, Origin, hidden fields).
// Not a test file.

export interface ConsentForm {
  request: string;
  csrf: string;
  cookie: string;
  html: string;
  status: number;
}

function hidden(html: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (match === null) throw new Error(`no hidden field ${name} in the page`);
  return match[1] ?? "";
}

/** GET /authorize: the page, its hidden fields and the CSRF cookie. */
export async function openConsent(fetcher: (url: string, init?: RequestInit) => Promise<Response>, authorizeUrl: string): Promise<ConsentForm> {
  const response = await fetcher(authorizeUrl, { redirect: "manual" });
  const html = await response.text();
  if (response.status !== 200) return { request: "", csrf: "", cookie: "", html, status: response.status };
  const setCookie = response.headers.getSetCookie()[0] ?? "";
  return { request: hidden(html, "request"), csrf: hidden(html, "csrf"), cookie: setCookie.split(";")[0] ?? "", html, status: response.status };
}

/** POST /consent with a decision; returns the response (303 with Location on approval). */
export function answerConsent(
  fetcher: (url: string, init?: RequestInit) => Promise<Response>,
  origin: string,
  form: ConsentForm,
  answer: { password?: string; decision: "approve" | "deny"; csrf?: string; cookie?: string | null; origin?: string | null },
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  const cookie = answer.cookie === undefined ? form.cookie : answer.cookie;
  if (cookie !== null) headers["cookie"] = cookie;
  const sentOrigin = answer.origin === undefined ? origin : answer.origin;
  if (sentOrigin !== null) headers["origin"] = sentOrigin;
  const body = new URLSearchParams({ request: form.request, csrf: answer.csrf ?? form.csrf, password: answer.password ?? "", decision: answer.decision });
  return fetcher(`${origin}/consent`, { method: "POST", headers, body: body.toString(), redirect: "manual" });
}

export type Fetcher = (url: string, init?: RequestInit) => Promise<Response>;

/** A fetcher that sends absolute URLs to an in-process app (through its request helper). */
export function inProcess(request: (path: string, init?: RequestInit) => Promise<Response>): Fetcher {
  return (url, init) => {
    const parsed = new URL(url);
    return request(parsed.pathname + parsed.search, init);
  };
}

export interface Grant {
  clientId: string;
  accessToken: string;
  refreshToken: string;
  verifier: string;
}

/**
 * Registers a public client (or reuses `clientId`, as many people behind one client id do), approves
 * it on the consent page and exchanges the code: a full grant.
 */
export async function obtainGrant(
  fetcher: Fetcher,
  origin: string,
  password: string,
  redirectUri: string,
  extra: Record<string, string> = {},
  existingClientId?: string,
): Promise<Grant> {
  const clientId = existingClientId ?? (await registerPublicClient(fetcher, origin, redirectUri));
  const verifier = "v".repeat(20) + crypto.randomUUID().replace(/-/g, "");
  const challenge = Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))).toString("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s1",
    scope: "tasks offline_access",
    resource: `${origin}/mcp`,
    ...extra,
  });
  const form = await openConsent(fetcher, `${origin}/authorize?${query.toString()}`);
  const answer = await answerConsent(fetcher, origin, form, { decision: "approve", password });
  const code = new URL(answer.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const token = await fetcher(`${origin}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      code_verifier: verifier,
      redirect_uri: redirectUri,
      resource: `${origin}/mcp`,
    }).toString(),
  });
  const body = (await token.json()) as { access_token: string; refresh_token: string };
  return { clientId, accessToken: body.access_token, refreshToken: body.refresh_token, verifier };
}

async function registerPublicClient(fetcher: Fetcher, origin: string, redirectUri: string): Promise<string> {
  const registered = await fetcher(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "route-test", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  });
  return ((await registered.json()) as { client_id: string }).client_id;
}

export function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = "w".repeat(20) + crypto.randomUUID().replace(/-/g, "");
  return crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)).then((d) => ({ verifier, challenge: Buffer.from(d).toString("base64url") }));
}
