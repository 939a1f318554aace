import { isUntrustedText } from "../../../receipt/untrustedText.js";
import type { OperationListItem } from "../../../operations/serviceTypes.js";
import type { SiteListing } from "../httpDeps.js";
import { escapeHtml, page } from "../oauth/consentPage.js";
import { sitesSection } from "./siteLoginPages.js";

/**
 * The owner console's pages: plain server-rendered HTML, no scripts, no external assets, readable
 * on a phone. Everything shown that came from a task or a page is escaped.
 */

function csrfField(csrf: string): string {
  return `<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">`;
}

function logoutForm(csrf: string): string {
  return `<form method="post" action="/owner/logout" class="inline">${csrfField(csrf)}<button type="submit">Log out</button></form>`;
}

export function loginPage(csrf: string, next: string, message?: string): string {
  return page(
    "errand owner console",
    `<h1>errand owner console</h1>
${message === undefined ? "" : `<p class="warn" role="alert">${escapeHtml(message)}</p>`}
<form method="post" action="/owner/login">
${csrfField(csrf)}
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="password">Owner password</label>
<input id="password" type="password" name="password" autocomplete="current-password" required autofocus>
<button type="submit">Log in</button>
</form>
<p>Only the owner of this errand logs in here, with the owner password. No assistant, OAuth grant or API token can.</p>`,
  );
}

function receiptCells(item: OperationListItem): string {
  const r = item.receipt;
  const checks = r === undefined ? "" : `${r.checks.filter((c) => c.passed).length}/${r.checks.length} checks held`;
  return `<td>${escapeHtml(r?.status ?? item.status)}</td><td>${escapeHtml(r?.provider ?? "")}</td><td>${escapeHtml(checks)}</td>`;
}

function grantsSection(csrf: string, sites: readonly SiteListing[]): string {
  const granted = sites.filter((site) => site.grants.length > 0);
  if (granted.length === 0) return "<h2>Standing grants</h2><p>No site has a standing grant: every write waits for you.</p>";
  const items = granted
    .map((site) => {
      const grants = site.grants
        .map(
          (grant) =>
            `<li>up to ${escapeHtml(grant.risk)}, secrets ${escapeHtml(grant.secrets.length === 0 ? "none" : grant.secrets.join(", "))}, until ${escapeHtml(grant.expiresAt)} (<code>${escapeHtml(grant.id)}</code>)</li>`,
        )
        .join("");
      return `<li class="grant"><strong>${escapeHtml(site.name)}</strong> (${escapeHtml(site.origins.join(", "))})<ul>${grants}</ul><form method="post" action="/owner/sites/${encodeURIComponent(site.name)}/revoke" class="inline">${csrfField(csrf)}<button type="submit">Revoke ${escapeHtml(site.name)}</button></form></li>`;
    })
    .join("");
  return `<h2>Standing grants</h2><p>Tasks on these sites, up to the risk shown and typing only the secrets shown, run without asking you.</p><ul>${items}</ul>`;
}

export function dashboardPage(csrf: string, pending: OperationListItem[], recent: OperationListItem[], sites: readonly SiteListing[] = []): string {
  const pendingList =
    pending.length === 0
      ? "<p>Nothing is waiting for your approval.</p>"
      : `<ul>${pending
          .map(
            (item) =>
              `<li><a href="/owner/approvals/${escapeHtml(item.handle.operationId)}">${escapeHtml(item.risk)} task ${escapeHtml(item.handle.operationId)}</a> (until ${escapeHtml(item.approval?.expiresAt ?? "")})</li>`,
          )
          .join("")}</ul>`;
  const rows = recent
    .map(
      (item) =>
        `<tr><td><a href="/owner/operations/${escapeHtml(item.handle.operationId)}">${escapeHtml(item.handle.operationId.slice(0, 8))}</a></td>${receiptCells(item)}<td>${escapeHtml(item.updatedAt)}</td></tr>`,
    )
    .join("");
  return page(
    "errand owner console",
    `<h1>errand owner console</h1>
<h2>Waiting for your approval</h2>
${pendingList}
${grantsSection(csrf, sites)}
<h2>Recent operations</h2>
${recent.length === 0 ? "<p>None yet.</p>" : `<table><thead><tr><th>operation</th><th>status</th><th>provider</th><th>checks</th><th>updated</th></tr></thead><tbody>${rows}</tbody></table>`}
${sitesSection(sites)}
<p>${logoutForm(csrf)}</p>`,
  );
}

export function approvalPage(csrf: string, item: OperationListItem, grantsOffered = false): string {
  const approval = item.approval;
  if (approval === undefined) return operationPage(csrf, item);
  const id = escapeHtml(item.handle.operationId);
  const decision = (action: "approve" | "deny" | "approve-and-allow", label: string) =>
    `<form method="post" action="/owner/approvals/${id}/${action}" class="inline">${csrfField(csrf)}<input type="hidden" name="requestDigest" value="${escapeHtml(approval.requestDigest)}"><button type="submit">${escapeHtml(label)}</button></form>`;
  const site = approval.description.site;
  const allowable = grantsOffered && site !== undefined && approval.description.risk !== "read_only";
  const secrets = approval.description.secrets.map((secret) => secret.name);
  const allow = allowable
    ? `${decision("approve-and-allow", `Approve and allow tasks like this on ${site} for 24 hours`)}
<p>That also lets tasks on ${escapeHtml(site)}'s origins, up to ${escapeHtml(approval.description.risk)}${secrets.length === 0 ? " and typing no secret" : `, typing only ${escapeHtml(secrets.join(", "))}`}, run without asking you for 24 hours (revoke it on the console's main page).</p>`
    : "";
  return page(
    "Approve this task?",
    `<h1>Approve this task?</h1>
<p>Operation <code>${id}</code> waits for your approval until ${escapeHtml(approval.expiresAt)}. Nothing has run.</p>
<div class="box"><pre id="summary">${escapeHtml(approval.summary)}</pre></div>
<p>Request digest: <code id="digest">${escapeHtml(approval.requestDigest)}</code></p>
<p>Approve only if this is exactly what you asked for. The approval is bound to this digest: a changed task is a different request.</p>
${decision("approve", "Approve")}
${decision("deny", "Deny")}
${allow}
<p><a href="/owner">Back</a></p>`,
  );
}

export function operationPage(csrf: string, item: OperationListItem): string {
  const r = item.receipt;
  const checks =
    r === undefined
      ? ""
      : `<ul>${r.checks.map((c) => `<li>${c.passed ? "held" : "did not hold"}: ${escapeHtml(c.action)} ${escapeHtml(c.match)} ${escapeHtml(JSON.stringify(c.expected).slice(0, 200))}${c.observed === undefined ? "" : ` (saw, untrusted page text: ${escapeHtml(JSON.stringify(isUntrustedText(c.observed) ? c.observed.text : String(c.observed)).slice(0, 200))})`}</li>`).join("")}</ul>`;
  return page(
    "errand operation",
    `<h1>Operation <code>${escapeHtml(item.handle.operationId)}</code></h1>
<table><tbody>
<tr><th>status</th><td id="status">${escapeHtml(item.status)}${r === undefined ? "" : ` (${escapeHtml(r.status)})`}</td></tr>
<tr><th>risk</th><td>${escapeHtml(item.risk)}</td></tr>
<tr><th>provider</th><td>${escapeHtml(r?.provider ?? "")}</td></tr>
<tr><th>final URL</th><td>${escapeHtml(r?.finalUrl?.text ?? "")}</td></tr>
<tr><th>error</th><td>${escapeHtml(r?.error === null || r?.error === undefined ? "" : `${r.error.code}: ${r.error.message}`)}</td></tr>
<tr><th>request digest</th><td><code>${escapeHtml(item.handle.requestDigest)}</code></td></tr>
<tr><th>updated</th><td>${escapeHtml(item.updatedAt)}</td></tr>
</tbody></table>
${r === undefined ? "" : `<h2>Checks</h2>${checks}`}
<p><a href="/owner">Back</a> ${logoutForm(csrf)}</p>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(`errand: ${title}`, `<h1>${escapeHtml(title)}</h1><p role="alert">${escapeHtml(message)}</p><p><a href="/owner">Owner console</a></p>`);
}
