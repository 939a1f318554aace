import type { ErrorCode } from "../errors/errorCodes.js";
import type { Problem } from "../errors/result.js";
import { createHostAllowlist } from "../executor/hostAllowlist.js";
import { originMatchesSites, sitesMayMatchHostPattern } from "../secrets/secretSite.js";
import type { Task } from "../task/taskTypes.js";
import type { SiteRefusal } from "../sites/siteRefusal.js";

/** What submit may look up about the owner's setup to tell that a task cannot succeed. */
export interface SubmitFacts {
  /** The sites a declared secret is bound to; null when the owner never declared that name. */
  secretSites?: (name: string) => Promise<readonly string[] | null>;
  /** Why a task naming a site cannot start (src/sites/siteRefusal, against the owner's sites now), or null. */
  siteRefusal?: (task: Task) => Promise<SiteRefusal | null>;
  /** Whether the owner added a file of that name for uploads (errand file add). */
  fileKnown?: (name: string) => Promise<boolean>;
}

/** One reason a valid task is known to fail before anything runs: its problems, none when it does not apply. */
type SubmitCheck = (task: Task, facts: SubmitFacts) => Promise<Problem[]>;

const AGAIN = "Nothing was queued and the owner was not asked; submit it again under the same operationId once that is fixed.";

/**
 * A goto to a host the task does not name: the browser is held to the task's hosts, so the step
 * would be stopped there (after the owner was asked, and after earlier steps ran). A wait_for on a
 * URL off those hosts could never hold, and is refused the same way.
 */
const offListGoto: SubmitCheck = (task) => {
  const allowed = createHostAllowlist(task);
  const problems: Problem[] = [];
  for (const [index, step] of task.steps.entries()) {
    const url = step.action === "goto" || (step.action === "wait_for" && "url" in step) ? step.url : undefined;
    if (url === undefined || allowed(url)) continue;
    const host = new URL(url).hostname;
    const does = step.action === "goto" ? "goes to" : "waits for an address on";
    problems.push({
      code: "navigation_blocked",
      path: `/steps/${index}/url`,
      message: `Step ${index + 1} (${step.action}) ${does} ${host}, which is not one of this task's hosts (${describeHosts(task)}), so errand would stop it there. If the person meant ${host}, add it to allowedHosts. ${AGAIN}`,
    });
  }
  return Promise.resolve(problems);
};

/**
 * fill_secret with a name the owner never declared, or with a secret bound to no origin this task
 * can reach (its target, its goto URLs, its allowedHosts): a look-alike site would get nothing, so
 * the task can only fail.
 */
const secretsTheTaskCannotType: SubmitCheck = async (task, facts) => {
  const lookup = facts.secretSites;
  if (lookup === undefined) return [];
  const target = new URL(task.target.url).origin;
  const urls = [task.target.url, ...task.steps.flatMap((step) => (step.action === "goto" ? [step.url] : []))];
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const [index, step] of task.steps.entries()) {
    if (step.action !== "fill_secret" || seen.has(step.secret)) continue;
    seen.add(step.secret);
    let sites: readonly string[] | null;
    try {
      sites = await lookup(step.secret);
    } catch {
      // An unreadable record is reported by the admission step (secret_unreadable), before any browser.
      continue;
    }
    const path = `/steps/${index}/secret`;
    if (sites === null) {
      problems.push({
        code: "secret_unknown",
        path,
        message: `The task types the secret ${step.secret}, which the owner has not declared on the errand host, so it would fail before typing anything. Ask the person to declare it for ${target} (on the errand host: errand secret set ${step.secret} --site ${target}). ${AGAIN}`,
      });
      continue;
    }
    const reachable = urls.some((url) => originMatchesSites(url, sites)) || task.allowedHosts.some((pattern) => sitesMayMatchHostPattern(sites, pattern));
    if (!reachable) {
      problems.push({
        code: "secret_site_mismatch",
        path,
        message: `The owner bound the secret ${step.secret} to ${sites.join(", ")}, and this task reaches none of them (its target is ${target}), so errand would type nothing. Check that ${target} is the real site: a look-alike gets no secret. If it is the real site, the owner must bind ${step.secret} to it (on the errand host: errand secret set ${step.secret} --site ${target}). ${AGAIN}`,
      });
    }
  }
  return problems;
};

/**
 * A site the owner never set up, a target off the site's origins, or a task that does not log in
 * while the site has no session (or one known to be logged out): the admission step would refuse it
 * before any browser with the same rule and words (sites/siteRefusal).
 */
const siteTheTaskCannotUse: SubmitCheck = async (task, facts) => {
  if (task.site === undefined || facts.siteRefusal === undefined) return [];
  const refusal = await facts.siteRefusal(task);
  if (refusal === null) return [];
  const path = refusal.code === "site_target_outside" ? "/target/url" : "/site";
  return [{ code: refusal.code, path, message: refusal.message.replace(/ Nothing ran\.$/, "") + ` ${AGAIN}` }];
};

/** An upload naming a file the owner never added: the step could only fail, after the owner was asked. */
const filesTheTaskCannotUpload: SubmitCheck = async (task, facts) => {
  const known = facts.fileKnown;
  if (known === undefined) return [];
  const problems: Problem[] = [];
  for (const [index, step] of task.steps.entries()) {
    if (step.action !== "upload" || typeof step.file !== "string" || (await known(step.file))) continue;
    problems.push({
      code: "file_unknown",
      path: `/steps/${index}/file`,
      message: `Step ${index + 1} (upload) names the file ${step.file}, which the owner has not added, so it would fail. Ask the person to add it on the errand host (errand file add ${step.file} PATH; errand file list shows the names). ${AGAIN}`,
    });
  }
  return problems;
};

/**
 * Every reason submit refuses a valid task that is already known to fail, in the order they are
 * reported. A new reason (an unknown site, a session known to be expired) is one more entry here;
 * its code goes into SUBMIT_REFUSAL_CODES.
 */
const SUBMIT_CHECKS: readonly SubmitCheck[] = [siteTheTaskCannotUse, offListGoto, secretsTheTaskCannotType, filesTheTaskCannotUpload];

/** The codes submitRefusals gives: each interface answers them as a refusal (BLOCKED, HTTP 422). */
export const SUBMIT_REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "navigation_blocked",
  "secret_unknown",
  "secret_site_mismatch",
  "site_unknown",
  "site_target_outside",
  "login_required",
  "file_unknown",
]);

/**
 * What is known to fail about a valid task before the owner is asked or anything is queued: every
 * problem found, each with its code, the JSON Pointer of the step, and what to do about it.
 */
export async function submitRefusals(task: Task, facts: SubmitFacts): Promise<Problem[]> {
  const problems: Problem[] = [];
  for (const check of SUBMIT_CHECKS) problems.push(...(await check(task, facts)));
  return problems;
}

function describeHosts(task: Task): string {
  const target = new URL(task.target.url).hostname;
  return task.allowedHosts.length === 0
    ? `the target ${target}; allowedHosts is empty`
    : `the target ${target} and allowedHosts ${task.allowedHosts.join(", ")}`;
}
