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
