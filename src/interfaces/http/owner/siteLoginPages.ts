import type { SiteListing } from "../httpDeps.js";
import { escapeHtml, page } from "../oauth/consentPage.js";

/** The console's list of sites, each with its "Log in" button (a link to the site's login page). */
export function sitesSection(sites: readonly SiteListing[]): string {
  if (sites.length === 0) return "<h2>Sites</h2><p>No sites set up (errand site add NAME --origin ORIGIN).</p>";
  const rows = sites
    .map((site) => {
      const name = escapeHtml(site.name);
      return `<li><strong>${name}</strong> (${site.loggedIn ? "logged in" : "not logged in"}) <a class="button" role="button" href="/owner/sites/${encodeURIComponent(site.name)}/login">Log in</a></li>`;
    })
    .join("");
  return `<h2>Sites</h2><style>a.button{display:inline-block;padding:.4rem 1rem;border:1px solid #555;border-radius:6px;text-decoration:none;color:inherit;margin:.25rem 0}</style><ul id="sites">${rows}</ul>`;
}

const KEYS: [string, string][] = [
  ["Enter", "Enter"],
  ["Tab", "Tab"],
  ["Backspace", "⌫"],
  ["Escape", "Esc"],
  ["ArrowLeft", "←"],
  ["ArrowUp", "↑"],
  ["ArrowDown", "↓"],
  ["ArrowRight", "→"],
];

/**
 * The live login page: the site's page as images errand's browser takes, a tap on the image goes
 * to the same point of the page, a text box (no autofill) types into the page, a few keys, Done.
 * The script is errand's own (/owner/sites/handoff.js); the page's CSP allows nothing else.
 */
export function siteLoginPage(csrf: string, name: string, viewport: { width: number; height: number }, ttlMinutes: number): string {
  const keys = KEYS.map(([key, label]) => `<button type="button" class="key" data-key="${key}" aria-label="${key}">${escapeHtml(label)}</button>`).join("");
  return page(
    `Log in to ${name}`,
    `<main id="handoff" data-site="${escapeHtml(name)}" data-csrf="${escapeHtml(csrf)}" data-width="${viewport.width}" data-height="${viewport.height}">
<h1>Log in to ${escapeHtml(name)}</h1>
<p id="status" role="status">Opening the site's login page in errand's browser…</p>
<img id="screen" alt="The site's page in errand's browser; tap to tap there" width="${viewport.width}" height="${viewport.height}" style="display:block;width:100%;max-width:${viewport.width}px;height:auto;border:1px solid #888;touch-action:manipulation;background:#eee">
<form id="typing" autocomplete="off">
<label for="text">Type into the page (tap a field above first)</label>
<input id="text" name="handoff-text" type="text" autocomplete="off" autocapitalize="off" autocorrect="off" spellcheck="false" data-lpignore="true" data-1p-ignore data-bwignore style="width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box">
<button type="submit" id="send">Type it</button>
</form>
<p id="keys">${keys}</p>
<p><button type="button" id="done">Done</button> <button type="button" id="cancel">Cancel</button></p>
<p>This is errand's own browser, on the site's origins and its login hosts only. Log in by hand (password, code, CAPTCHA), then tap Done: errand checks that it is logged in and saves the session, sealed, for the site's origins. Nothing you type is kept. This page closes its browser after ${ttlMinutes} minutes.</p>
<p><a href="/owner">Owner console</a></p>
</main><script src="/owner/sites/handoff.js"></script>`,
  );
}

/** The live login page's script: plain DOM, no framework; every request a same-origin form POST carrying the CSRF token. */
export const HANDOFF_SCRIPT = `"use strict";
(() => {
  const root = document.getElementById("handoff");
  const site = root.dataset.site, csrf = root.dataset.csrf;
  const width = Number(root.dataset.width), height = Number(root.dataset.height);
  const base = "/owner/sites/" + encodeURIComponent(site) + "/login/";
  const screen = document.getElementById("screen"), status = document.getElementById("status"), text = document.getElementById("text");
  let open = false, shown = null;
  const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const say = (words) => { status.textContent = words; };
  const post = (action, fields) => fetch(base + action, { method: "POST", credentials: "same-origin", cache: "no-store", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(Object.assign({ csrf }, fields || {})) });
  const answer = async (res) => { try { return await res.json(); } catch { return { ok: false, message: "errand answered " + res.status + "." }; } };
  const send = async (action, fields) => {
    if (!open) return null;
    const res = await post(action, fields).catch(() => null);
    if (res === null) { say("errand did not answer; try again."); return null; }
    const body = await answer(res);
    if (!res.ok) { if (res.status === 410 || res.status === 401 || res.status === 403) open = false; say(body.message); }
    return body;
  };
  // Only an answer that the browser is gone or the owner's session is not (401, 403, 404, 410)
  // ends the live view; any other failure (errand's browser busy or between pages) is retried.
  const frames = async () => {
    while (open) {
      const res = await post("frame").catch(() => null);
      if (res === null) { await pause(1000); continue; }
      if (!res.ok) {
        const body = await answer(res);
        if ([401, 403, 404, 410].includes(res.status)) { open = false; say(body.message); break; }
        await pause(500);
        continue;
      }
      const next = URL.createObjectURL(await res.blob());
      screen.src = next;
      if (shown !== null) URL.revokeObjectURL(shown);
      shown = next;
      await pause(250);
    }
  };
  screen.addEventListener("click", (event) => {
    const box = screen.getBoundingClientRect();
    const x = Math.round(((event.clientX - box.left) * width) / box.width);
    const y = Math.round(((event.clientY - box.top) * height) / box.height);
    void send("tap", { x: String(x), y: String(y) });
  });
  document.getElementById("typing").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = text.value;
    text.value = "";
    if (value !== "") void send("type", { text: value });
  });
  for (const button of document.querySelectorAll("button.key")) button.addEventListener("click", () => void send("key", { key: button.dataset.key }));
  document.getElementById("done").addEventListener("click", async () => {
    say("Checking that the site shows you logged in…");
    const body = await send("done");
    if (body === null) return;
    say(body.message);
    if (body.saved) open = false;
  });
  document.getElementById("cancel").addEventListener("click", async () => {
    await send("cancel");
    open = false;
    say("Closed; nothing was saved.");
  });
  void (async () => {
    const res = await post("start").catch(() => null);
    const body = res === null ? { message: "errand did not answer." } : await answer(res);
    if (res === null || !res.ok) return say(body.message);
    open = true;
    say(body.message);
    void frames();
  })();
})();
`;
