import type { PendingConsent } from "./pendingConsents.js";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}.box{border:1px solid #ccc;border-radius:8px;padding:1rem 1.25rem;margin:1rem 0}
.warn{color:#8a1c1c;font-weight:600}label{display:block;margin:.75rem 0 .25rem}
input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{font-size:1rem;padding:.5rem 1.25rem;margin:.75rem .5rem 0 0}code{word-break:break-all}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:.75rem;border-radius:6px;font-size:.9rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}td,th{border-bottom:1px solid #ddd;padding:.35rem .25rem;text-align:left;vertical-align:top}
form.inline{display:inline}`;

/** A complete page: no scripts, no external assets, readable on a phone. */
export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

/** The owner's consent form: who asks, where the answer goes, the password, and Approve / Deny. */
export function consentPage(consent: PendingConsent, message: string | undefined): string {
  const redirectHost = new URL(consent.redirectUri).host;
  return page(
    "Connect to errand?",
    `<h1>Connect to errand?</h1>
<div class="box"><p><strong>${escapeHtml(consent.clientName)}</strong> (a name the client gave itself; errand cannot verify it) asks to run browser tasks through this errand
(scopes: ${escapeHtml(consent.scopes.join(", "))}).</p>
<p>After you answer you are sent back to <strong>${escapeHtml(redirectHost)}</strong>
(<code>${escapeHtml(consent.redirectUri)}</code>; ChatGPT shows its callback URL on the app's settings page).</p>
${consent.verifiedHost === undefined ? "" : `<p>Verified: this client is published at <strong>${escapeHtml(consent.verifiedHost)}</strong> (errand fetched its metadata document from there).</p>\n`}<p>Client id: <code>${escapeHtml(consent.clientId)}</code></p></div>
${message === undefined ? "" : `<p class="warn" role="alert">${escapeHtml(message)}</p>`}
<form method="post" action="/consent">
<input type="hidden" name="request" value="${escapeHtml(consent.id)}">
<input type="hidden" name="csrf" value="${escapeHtml(consent.csrf)}">
<label for="password">Owner password</label>
<input id="password" type="password" name="password" autocomplete="current-password" required autofocus>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
</form>
<p>Approve only if you started this connection yourself, just now: whoever holds this grant can run browser tasks as you.</p>`,
  );
}

/** A lock's length in words: "15 minutes", "2 hours", "1 day". */
function lockLength(ms: number): string {
  const [unit, size]: [string, number] =
    ms >= 86_400_000 && ms % 86_400_000 === 0 ? ["day", 86_400_000] : ms >= 3_600_000 && ms % 3_600_000 === 0 ? ["hour", 3_600_000] : ["minute", 60_000];
  const n = Math.max(1, Math.round(ms / size));
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/**
 * What a wrong owner password tells whoever typed it: what the documented lockout schedule says
 * anyway (how many more tries, how long the lock), whether the password changed while the page was
 * open (only the owner can act on that), and which password counts. Nothing about the password.
 */
export function wrongPasswordMessage(outcome: { attemptsLeft: number; nextLockMs: number }, changedSincePageOpened: boolean): string {
  const tries = outcome.attemptsLeft === 1 ? "One more wrong answer" : `${outcome.attemptsLeft} more wrong answers`;
  return [
    changedSincePageOpened ? "The owner password was changed after this page opened: use the new one." : "",
    `${tries} from your address lock it for ${lockLength(outcome.nextLockMs)} (errand owner unlock on the errand host lifts a lock).`,
    "The password is the one last set with errand owner set-password; ERRAND_OWNER_PASSWORD on the server wins when it is set.",
  ]
    .filter((line) => line !== "")
    .join(" ");
}

export function lockedPage(untilMs: number): string {
  return page(
    "errand: locked",
    `<h1>Too many wrong passwords</h1><p class="warn" role="alert">Owner approvals from your address are locked until ${escapeHtml(new Date(untilMs).toISOString())}.</p>
<p>Nothing was approved. Try again after that time; each further lock from the same address lasts twice as long (up to a day). On the errand host, <code>errand owner unlock</code> lifts it at once. If it was not you, someone is guessing your owner password: change it with <code>errand owner set-password</code>.</p>`,
  );
}

export function busyPage(message: string): string {
  return page("errand: busy", `<h1>Please wait</h1><p class="warn" role="alert">${escapeHtml(message)}</p>`);
}

export function errorPage(title: string, message: string): string {
  return page(`errand: ${title}`, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

/** The CSP of a consent page: no scripts at all, and the form may only post here or lead to the client's callback. */
export function consentCsp(redirectUri: string | undefined): string {
  const target = redirectUri === undefined ? "" : ` ${new URL(redirectUri).origin}`;
  return `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${target}; frame-ancestors 'none'; base-uri 'none'`;
}
