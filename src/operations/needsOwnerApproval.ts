import type { OwnerApprovalRule } from "../config/parseOwnerApproval.js";
import { hostPatternWithinSites, originMatchesSites } from "../secrets/secretSite.js";
import type { LiveSiteGrant } from "../sites/siteTypes.js";
import type { Risk, Task } from "../task/taskTypes.js";

/** Whether the owner must approve a task, and when not only because a standing grant covers it, which grant. */
export type OwnerApprovalDecision = { needed: true } | { needed: false; grantId: string | null };

const RISK_RANK: Record<Risk, number> = { read_only: 0, reversible_write: 1, consequential: 2 };

/**
 * Whether the owner must approve this task before anything runs, under ERRAND_OWNER_APPROVAL and
 * the owner's live standing grants on the task's site. Rules name a risk literally
 * (`reversible_write` does not include `consequential`), `secret` any fill_secret step, `all` every
 * task. The task's `risk` is the assistant's label, so it can only make a task stricter: a task
 * labelled read_only sends no write on the wire whatever it asks.
 *
 * A task the rules hold runs without a per-task approval only when one grant covers it whole
 * (grantCovers); its id is then returned so the operation records which grant let it run.
 */
export function decideOwnerApproval(task: Task, rules: readonly OwnerApprovalRule[], grants: readonly LiveSiteGrant[] = [], nowMs = 0): OwnerApprovalDecision {
  if (!rulesHold(task, rules)) return { needed: false, grantId: null };
  const grant = grants.find((candidate) => grantCovers(candidate, task, nowMs));
  return grant === undefined ? { needed: true } : { needed: false, grantId: grant.grantId };
}

/** The boolean form of decideOwnerApproval. */
export function needsOwnerApproval(task: Task, rules: readonly OwnerApprovalRule[], grants: readonly LiveSiteGrant[] = [], nowMs = 0): boolean {
  return decideOwnerApproval(task, rules, grants, nowMs).needed;
}

function rulesHold(task: Task, rules: readonly OwnerApprovalRule[]): boolean {
  for (const rule of rules) {
    if (rule === "all") return true;
    if (rule === "secret" && task.steps.some((step) => step.action === "fill_secret")) return true;
    if (rule === task.risk) return true;
  }
  return false;
}

/**
 * A grant covers a task when the task names the grant's site, the grant has not expired, the task's
 * risk is at most the grant's, every secret it types is one the grant names, and every host the
 * task can reach lies within the site's origins: its target and every goto URL by origin, every
 * allowedHosts pattern by host (the browser is held to exactly these). So a grant for a site never
 * carries a write, or a secret, to another host.
 */
function grantCovers(grant: LiveSiteGrant, task: Task, nowMs: number): boolean {
  if (task.site === undefined || task.site !== grant.site) return false;
  if (grant.expiresMs <= nowMs) return false;
  if (RISK_RANK[task.risk] > RISK_RANK[grant.risk]) return false;
  for (const step of task.steps) {
    if (step.action === "fill_secret" && !grant.secrets.includes(step.secret)) return false;
    if (step.action === "goto" && !originMatchesSites(step.url, grant.origins)) return false;
  }
  if (!originMatchesSites(task.target.url, grant.origins)) return false;
  return task.allowedHosts.every((pattern) => hostPatternWithinSites(pattern, grant.origins));
}
