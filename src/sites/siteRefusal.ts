import type { ErrorCode } from "../errors/errorCodes.js";
import { originMatchesSites } from "../secrets/secretSite.js";
import type { Task } from "../task/taskTypes.js";
import type { SiteDefinition } from "./siteTypes.js";

/** Why a site task cannot start, in the words the assistant and the person get, wherever it is found. */
export interface SiteRefusal {
  code: Extract<ErrorCode, "site_unknown" | "site_target_outside" | "login_required">;
  message: string;
}

/**
 * The one rule for refusing a site task before any browser, used at submit (before the owner is
 * asked) and again at admission (the site may have changed in between): an unknown site, a target
 * off the site's origins, or a task that types no secret while the site has no usable session.
 * A task that types a secret is a login and may start without a session. Null: it may start.
 */
export function siteRefusal(task: Task, site: SiteDefinition | null, hasSession: boolean, loginPageUrl: string): SiteRefusal | null {
  if (task.site === undefined) return null;
  if (site === null)
    return {
      code: "site_unknown",
      message: `No site named ${task.site} is set up; the owner sets it up with errand site add ${task.site} --origin https://... (errand site list shows the sites). Nothing ran.`,
    };
  if (!originMatchesSites(task.target.url, site.origins)) {
    return {
      code: "site_target_outside",
      message: `The target ${originOf(task.target.url)} is not on the site ${task.site} (${site.origins.join(", ")}); its session is used only there. Point target.url at one of those origins, or leave "site" out. Nothing ran.`,
    };
  }
  const logsIn = task.steps.some((step) => step.action === "fill_secret");
  if (!hasSession && !logsIn) return { code: "login_required", message: loginRequiredMessage(task.site, loginPageUrl, "it has no saved session") };
  return null;
}

/** login_required's message: why, where the person logs in, and the sentence the assistant can show. */
export function loginRequiredMessage(name: string, loginPageUrl: string, why: string): string {
  return `The site ${name} is not logged in (${why}); nothing was done. Ask the person to log in at ${loginPageUrl}, then try again.`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
