import { serveLocalSite } from "../support/serveLocalSite.js";
import type { LocalSite } from "../support/serveLocalSite.js";

export interface FormSite extends LocalSite {
  /** Every name the form received, in order: each side's task must add exactly its own. */
  received: string[];
}

/**
 * A one-form site on 127.0.0.1 for bench/assistant: GET /form shows a name field and a Send button;
 * POST /submit records the name and answers 303 to /thanks, which says "Thanks, NAME.".
 */
export async function startFormSite(): Promise<FormSite> {
  const received: string[] = [];
  const site = await serveLocalSite((req, res, url, html) => {
    if (req.method === "GET" && url.pathname === "/form") {
      return html(
        `<h1>Contact</h1><form method="post" action="/submit"><label>Name <input id="name" name="name"></label><button id="send" type="submit">Send</button></form>`,
        "Form",
      );
    }
    if (req.method === "POST" && url.pathname === "/submit") {
      let body = "";
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      req.on("end", () => {
        const name = (new URLSearchParams(body).get("name") ?? "").replace(/[^A-Za-z0-9 -]/g, "").slice(0, 40);
        received.push(name);
        res.writeHead(303, { location: `/thanks?name=${encodeURIComponent(name)}` }).end();
      });
      return true;
    }
    if (req.method === "GET" && url.pathname === "/thanks") {
      return html(`<p id="result">Thanks, ${(url.searchParams.get("name") ?? "").replace(/[^A-Za-z0-9 -]/g, "")}.</p>`, "Thanks");
    }
    return false;
  });
  return { ...site, received };
}
