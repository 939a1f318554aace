import { asErrorCode } from "../errors/errorCodes.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { SecretVault } from "../secrets/secretTypes.js";
import { SecretError } from "../secrets/secretTypes.js";
import { sessionValues } from "../sites/sessionScope.js";
import type { SavedSession, SiteDefinition, SiteSessions } from "../sites/siteTypes.js";
import { SiteError } from "../sites/siteTypes.js";
import { siteRefusal } from "../sites/siteRefusal.js";
import { missingApprovals } from "../task/missingApprovals.js";
import type { Task } from "../task/taskTypes.js";
import type { NetworkGuard } from "./networkGuard.js";
import { Redactor } from "./redactor.js";
import { firstLine } from "./stepFailure.js";
import { taskHosts } from "./taskHosts.js";
import type { HeldSecret } from "./typeSecret.js";

/** What the admission step asks of the outside world, injected by whoever wires errand. */
export interface AdmissionPorts {
  /** The operator's network policy; admission narrows it to the task's own hosts. */
  guard: NetworkGuard;
  /** The owner's declared secrets: fill_secret's names are looked up here, never in the process environment. */
  secrets: Pick<SecretVault, "reveal">;
  /** The owner's sites: a task's "site" is looked up here, its saved session opened for the attempt. Absent: no task may name a site. */
  sites?: SiteSessions;
}

/** A site task's site, as admission found it. */
export interface AdmittedSite {
  definition: SiteDefinition;
  /** The saved session restricted to the site's origins, or null (a login task starting without one). */
  session: SavedSession | null;
  /** True when the target must show the site's logged-in selector before any step (a task that types no secret). */
  checkLoggedIn: boolean;
}

/** The target's layer-1 verdict, as the receipt lists it in network.preflight. */
export type TargetVerdict = Awaited<ReturnType<NetworkGuard["preflight"]>>;

/** Why a task was refused before any browser opened: errand's own words, and a quoted detail when there is one. */
export interface Refusal {
  code: ErrorCode;
  message: string;
  /** Words errand quotes (a provider's answer): the receipt wraps them as untrusted. */
  detail?: string;
}

/** What every answer of the admission step carries, admitted or not. */
interface AdmissionEvidence {
  /** Scrubs every secret value revealed so far: the attempt's receipt, progress and errors go through it. */
  redactor: Redactor;
  /** The preflight verdicts gathered (the target's, once it was checked), for the receipt's network evidence. */
  preflight: TargetVerdict[];
}

/** The task may go to a browser: with what the executor needs from here on. */
export interface AdmittedTask extends AdmissionEvidence {
  admitted: true;
  /** The network policy narrowed to this task's hosts: every later check of the attempt uses it. */
  guard: NetworkGuard;
  /** Where the browser goes first: the target as the preflight allowed it. */
  targetHref: string;
  /** The task's declared secrets, each revealed once, before any browser opened. */
  held: ReadonlyMap<string, HeldSecret>;
  /** The task's site and its saved session, when the task names a site. */
  site?: AdmittedSite;
}

export interface RefusedTask extends AdmissionEvidence {
  admitted: false;
  refusal: Refusal;
}

export type Admission = AdmittedTask | RefusedTask;

/**
 * The admission step: every refusal errand gives a task before any provider is chosen or any
 * browser opened, in one place and in this order (the first that applies is the answer):
 *
 * 1. a missing approval (approval_required, then secret_approval_required; task/missingApprovals),
 *    then an upload in a read_only task (upload_needs_write);
 * 2. a site the owner never set up (site_unknown), a target off the site's origins
 *    (site_target_outside), or a site task that types no secret while the site has no saved session
 *    (login_required, with the owner console's login page for the site);
 * 3. a fill_secret name that is not declared or cannot be read (the vault's SecretError code);
 * 4. an allowedHosts entry the network policy could never honour (invalid_allowed_host);
 * 5. the target's network preflight (its code: ip_blocked, dns_failed, ...; network_blocked if
 *    the policy's code is not one of errand's).
 *
 * The router calls it once per attempt, before it plans a provider; the executor uses the router's
 * answer, or calls it itself when it runs without the router. Which refusals let a resubmitted
 * operation run again (errand's environment, not the task) is decided from the receipt's code in
 * operations/environmentRefusal, not here.
 */
export async function admitTask(task: Task, ports: AdmissionPorts): Promise<Admission> {
  const redactor = new Redactor();
  const preflight: TargetVerdict[] = [];
  const refuse = (code: ErrorCode, message: string): RefusedTask => ({
    admitted: false,
    refusal: { code, message: redactor.scrub(message) },
    redactor,
    preflight,
  });

  const approval = missingApprovals(task)[0];
  if (approval === "approval_required") return refuse(approval, `A ${task.risk} task runs only with "approved": true.`);
  if (approval === "secret_approval_required") return refuse(approval, `This task uses fill_secret; it runs only with "secretApproval": true.`);
  // Uploading sends a file to the site: a write, whatever the page does with it.
  const upload = task.risk === "read_only" ? task.steps.findIndex((step) => step.action === "upload") : -1;
  if (upload !== -1)
    return refuse(
      "upload_needs_write",
      `Step ${upload + 1} uploads a file, which sends it to the site: a read_only task never does. Mark the task "risk": "reversible_write" with "approved": true once the person agreed to it.`,
    );

  const types = task.steps.some((step) => step.action === "fill_secret");
  let site: AdmittedSite | undefined;
  if (task.site !== undefined) {
    let definition: SiteDefinition | null;
    try {
      definition = (await ports.sites?.lookup(task.site)) ?? null;
    } catch (error) {
      if (error instanceof SiteError) return refuse(error.code, error.message);
      return refuse("internal_error", `Reading the site ${task.site} failed: ${firstLine(error)}`);
    }
    const session = definition === null || ports.sites === undefined ? null : await ports.sites.openSession(definition);
    const refusal = siteRefusal(task, definition, session !== null, ports.sites?.loginPageUrl(task.site) ?? "");
    if (refusal !== null || definition === null) return refuse(refusal?.code ?? "site_unknown", refusal?.message ?? "");
    // The session's values are scrubbed like secrets from everything the attempt emits.
    for (const value of session === null ? [] : sessionValues(session)) redactor.add(value);
    site = { definition, session, checkLoggedIn: !types };
  }

  // Every named secret must be declared (and readable) before any browser opens: nothing is sent otherwise.
  const held = new Map<string, HeldSecret>();
  for (const name of new Set(task.steps.flatMap((step) => (step.action === "fill_secret" ? [step.secret] : [])))) {
    try {
      const secret = await ports.secrets.reveal(name);
      // A TOTP secret has no value yet: its code is learned by the redactor when it is typed.
      if (secret.value !== undefined) redactor.add(secret.value);
      held.set(name, secret);
    } catch (error) {
      if (error instanceof SecretError) return refuse(error.code, error.message);
      return refuse("internal_error", `Reading the declared secret ${name} failed: ${firstLine(error)}`);
    }
  }

  const guard = ports.guard.forTask(taskHosts(task));
  const hostsPolicy = guard.checkAllowedHosts(task.allowedHosts);
  if (!hostsPolicy.allowed) return refuse("invalid_allowed_host", `allowedHosts cannot be honoured: ${hostsPolicy.reason}`);
  const target = await guard.preflight(task.target.url);
  preflight.push(target);
  if (target.verdict === "block" || target.href === null) {
    return refuse(
      asErrorCode(target.code, "network_blocked"),
      `The target ${redactor.scrub(task.target.url)} was refused before the browser opened: ${target.reason}`,
    );
  }
  return { admitted: true, guard, targetHref: target.href, held, redactor, preflight, ...(site === undefined ? {} : { site }) };
}
