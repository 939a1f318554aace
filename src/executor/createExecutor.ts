import { setTimeout as delay } from "node:timers/promises";
import type { Page } from "playwright-core";
import { asErrorCode } from "../errors/errorCodes.js";
import type { ErrorCode } from "../errors/errorCodes.js";
import type { BrowserProvider, ProviderSession } from "../providers/providerTypes.js";
import { ProviderError } from "../providers/providerTypes.js";
import type { SecretVault } from "../secrets/secretTypes.js";
import { sessionValues } from "../sites/sessionScope.js";
import type { SiteSessions } from "../sites/siteTypes.js";
import type { FailureContext } from "../receipt/outlineTypes.js";
import type { TimeoutTiming } from "../receipt/receiptTypes.js";
import type { FillSecretStep, Task, UploadStep } from "../task/taskTypes.js";
import { admitTask } from "./admitTask.js";
import { loginRequiredMessage } from "../sites/siteRefusal.js";
import type { AdmittedSite, Refusal } from "./admitTask.js";
import { captureSiteSession, loadSiteSession, showsLoggedIn } from "./siteBrowserSession.js";
import { AttemptState } from "./attemptState.js";
import { buildReceipt } from "./buildReceipt.js";
import type { AttemptContext, AttemptOutcome, ExecuteTask } from "./executeTaskTypes.js";
import { createHostAllowlist } from "./hostAllowlist.js";
import { DownloadKeeper } from "./downloadKeeper.js";
import { sniffMediaType } from "./sniffMediaType.js";
import { OwnerFileError } from "../files/createOwnerFiles.js";
import type { OwnerFiles } from "../files/createOwnerFiles.js";
import { flagNavigation, guardPages, installGuards, stoppedNavigationMessage } from "./installGuards.js";
import type { NetworkGuard } from "./networkGuard.js";
import { NewTabs } from "./newTabs.js";
import { WAITS_THEN_CROSSES, performStep } from "./performStep.js";
import type { Redactor } from "./redactor.js";
import { SecretEgressGuard } from "./secretEgressGuard.js";
import { readFailureContext } from "./failureContext.js";
import { refusalOutcome } from "./refusalOutcome.js";
import { screenshotEvidence, wantsScreenshot } from "./screenshotEvidence.js";
import type { ArtifactBytes } from "../receipt/artifactTypes.js";
import { StepFailure, firstLine, isTimeout } from "./stepFailure.js";
import { stepRoot } from "./stepFrame.js";
import { untrusted } from "../receipt/untrustedText.js";
import { stepLabel } from "../task/stepLabel.js";
import { taskHosts } from "./taskHosts.js";
import type { HeldSecret } from "./typeSecret.js";
import { typeSecret } from "./typeSecret.js";
import { guardUnload, unloadJudge } from "./unloadGuard.js";
import { blockedKind } from "./judgeRequest.js";
import type { RequestRules } from "./judgeRequest.js";
import { ErrandError } from "../errors/errandError.js";

export interface ExecutorOptions {
  provider: BrowserProvider;
  /** The operator's network policy, for the admission step when no admission comes with the attempt (no router). */
  guard: NetworkGuard;
  /** The owner's declared secrets, for the admission step when no admission comes with the attempt (no router). */
  secrets: SecretVault;
  /** The owner's sites, for the admission step without the router, and to save a site task's session back. */
  sites?: SiteSessions;
  /** Whole-task browser time when the task does not set timeouts.taskMs (milliseconds). */
  defaultTaskTimeoutMs: number;
  /** Per-step time when neither the step nor the task sets one (milliseconds). */
  defaultStepTimeoutMs: number;
  /** ERRAND_DOWNLOAD_MAX_BYTES: bytes of one attempt's kept downloads together. Default 20 MiB. */
  downloadMaxBytes?: number;
  /** The owner's files for upload steps (errand file add); absent: every upload of a named file fails file_unknown. */
  files?: OwnerFiles;
}

/** ERRAND_DOWNLOAD_MAX_BYTES when nobody configured it. */
const DEFAULT_DOWNLOAD_MAX_BYTES = 20 * 1024 * 1024;
/** The least time downloads still arriving get once the steps ended. */
const DOWNLOAD_SETTLE_MIN_MS = 1_000;

/** Steps that can change the site; in a write task the mutation boundary is crossed before the first. */
const MUTATING_ACTIONS = new Set(["click", "fill", "fill_secret", "type", "select", "press", "upload", "check", "uncheck"]);
/** Mutating steps that cross the boundary themselves, after their read-only checks (env.beforeAct, fillSecret). */
const CROSSES_ITSELF = new Set(["fill_secret", "select", "upload"]);
/** Time allowed beyond the task budget for a step to notice its own timeout before errand gives up on it. */
const HARD_STOP_GRACE_MS = 2_000;
/** The least time an asked-for screenshot gets, even when the steps used the whole budget. */
const SCREENSHOT_MIN_MS = 1_000;

/**
 * The executor: takes the admission step's answer (the router's, or its own admitTask when it runs
 * without the router), refuses what its provider refuses (configuration, the session), then runs
 * the steps on a fresh provider session under the guards, and always returns a receipt. The
 * session is released in finally, whatever happens.
 */
export function createExecutor(options: ExecutorOptions): ExecuteTask {
  return async (task, context) => {
    const startedAt = new Date();
    const admission =
      context.admitted ??
      (await admitTask(task, { guard: options.guard, secrets: options.secrets, ...(options.sites === undefined ? {} : { sites: options.sites }) }));
    // Every refusal before a browser gets its receipt from one builder, with the admission's evidence.
    const refuse = (refusal: Refusal): AttemptOutcome =>
      refusalOutcome({
        task,
        requestDigest: context.requestDigest,
        attempt: context.attempt,
        provider: options.provider.name,
        startedAt,
        refusal,
        preflight: admission.preflight,
        redactor: admission.redactor,
      });
    if (!admission.admitted) return refuse(admission.refusal);
    // The policy narrowed to this task's hosts, the task's revealed secrets and the redactor that knows them.
    const { guard, held, redactor } = admission;
    const state = new AttemptState();
    state.network.preflight.push(...admission.preflight);
    let provider = options.provider.name;
    let finalUrl: string | null = null;
    let sessionId: string | undefined;
    let artifacts: ArtifactBytes[] = [];
    const siteRun: SiteRun = { targetLoaded: false, loggedOut: false };
    // The attempt's request rules: every hook of its browser, and the download keeper, ask judgeRequest with these.
    const rules: RequestRules = {
      guard,
      onTaskHosts: createHostAllowlist(task),
      readOnly: task.risk === "read_only",
      secretEgress: new SecretEgressGuard(),
      ...(admission.site === undefined ? {} : { siteOrigins: admission.site.definition.origins }),
    };
    const downloads = new DownloadKeeper({ state, rules, maxBytes: options.downloadMaxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES });
    let downloaded: ArtifactBytes[] | null = null;
    // Every download has settled (kept, or refused and counted) before a screenshot takes the next index or the session closes.
    const settleDownloads = async (timeoutMs: number) => {
      downloaded ??= await downloads.settle(timeoutMs);
      if (state.error === null && state.downloadFailure !== null) state.error = state.downloadFailure;
    };

    const finish = (): AttemptOutcome => {
      explainReadOnlyWrite(task, state);
      if (artifacts.length === 0 && state.artifactsOmitted === null && wantsScreenshot(task, state)) {
        state.artifactsOmitted = "The attempt ended before a screenshot could be taken (stopped, timed out, or the browser was lost).";
      }
      const built = buildReceipt(
        {
          task,
          requestDigest: context.requestDigest,
          attempt: context.attempt,
          provider,
          finalUrl,
          startedAt,
          durationMs: Date.now() - startedAt.getTime(),
          ...(sessionId === undefined ? {} : { sessionId }),
        },
        state,
        redactor,
      );
      const all = [...(downloaded ?? []), ...artifacts];
      return all.length === 0 ? built : { ...built, artifacts: all };
    };

    const missing = options.provider.missingConfiguration();
    if (missing !== null) return refuse({ code: options.provider.kind === "cloud" ? "provider_unconfigured" : "configuration_error", message: missing });

    const taskMs = task.timeouts?.taskMs ?? options.defaultTaskTimeoutMs;
    const deadline = Date.now() + taskMs;
    let session: ProviderSession | null = null;
    try {
      session = await options.provider.openSession({
        budgetMs: taskMs,
        signal: context.signal,
        scope: { hosts: taskHosts(task), readOnly: task.risk === "read_only" },
      });
      provider = session.provider;
      sessionId = session.sessionId;
      // The site's session goes into the context before any page of the task loads.
      if (admission.site?.session) await loadSiteSession(session.context, admission.site.session, admission.site.definition.origins);
      const outcome = runSteps(task, context, session, admission.targetHref, {
        state,
        redactor,
        deadline,
        options,
        guard,
        rules,
        held,
        ...(admission.site === undefined ? {} : { site: admission.site }),
        siteRun,
        downloads,
      });
      const page = await withHardStop(untilSessionLost(outcome, session.whenLost), taskMs + HARD_STOP_GRACE_MS);
      await settleDownloads(Math.max(DOWNLOAD_SETTLE_MIN_MS, deadline - Date.now()));
      finalUrl = redactor.scrub(page === null || page.isClosed() ? (state.lastUrl ?? "") : page.url()) || null;
      if (!context.signal.aborted) {
        // Within the grace the runner leaves past the task's budget, and never less than a second.
        const timeoutMs = Math.max(SCREENSHOT_MIN_MS, deadline + HARD_STOP_GRACE_MS - Date.now());
        artifacts = await screenshotEvidence(page, task, state, redactor, { holdsSecret: held.size > 0, timeoutMs });
      }
    } catch (error) {
      if (context.signal.aborted && session === null) {
        state.error = { code: "cancelled", message: "The operation was cancelled while the provider session was opening.", step: null };
      } else if (error instanceof ProviderError) {
        // Refusals before any browser action: nothing ran, so the attempt is BLOCKED.
        // The provider's own words (quoted) can carry anything, a page's text included: error.detail, wrapped.
        if (REFUSING_PROVIDER_CODES.has(error.code))
          return refuse({ code: error.code, message: redactor.scrub(error.message), ...(error.quoted === undefined ? {} : { detail: error.quoted }) });
        state.error = {
          code: "provider_unavailable",
          message: redactor.scrub(error.message),
          step: null,
          ...(error.quoted === undefined ? {} : { detail: untrusted(redactor.scrub(error.quoted)) }),
        };
      } else if (error instanceof SessionLost) {
        if (state.error === null) state.error = { code: "provider_unavailable", message: error.message, step: null };
      } else if (error instanceof HardStop) {
        // The budget ran out and the browser did not stop on its own: that is the task's time, never a step's.
        // Before any step, the time went to opening the browser and the target.
        // Between steps, or after the last one (gathering evidence), no browser wait is to blame: no timing then.
        const underway = state.stepUnderway;
        const beforeSteps = underway === null && state.steps.length === 0;
        const timing =
          underway !== null
            ? { timing: { phase: underway.phase, waitedMs: Date.now() - underway.began } }
            : beforeSteps
              ? { timing: { phase: "navigation" as const, waitedMs: Date.now() - startedAt.getTime() } }
              : {};
        const when = beforeSteps
          ? " before the first step began (opening the browser and the target took it all)"
          : underway === null
            ? " after the last step that ran"
            : "";
        state.error = {
          code: "task_timeout",
          message: `The task's time (${taskMs} ms) ran out and the browser did not stop on its own, so errand stopped it${when}. Give the task more time (timeouts.taskMs).`,
          step: null,
          ...timing,
        };
      } else if (state.error === null) {
        // The thrown words may be the browser's, quoting the page: they go to detail, wrapped.
        state.error = {
          code: "internal_error",
          message: "The attempt failed in a way errand did not anticipate; error.detail has the words of what failed.",
          step: null,
          detail: untrusted(redactor.scrub(firstLine(error))),
        };
      }
    } finally {
      if (session !== null && admission.site !== undefined) await saveSiteSession(session, admission.site, siteRun, state, redactor, options.sites);
      if (session !== null) {
        await settleDownloads(0);
        // Cut the network before the pages close, so unload handlers send nothing; then count it all.
        await session.seal?.().catch(() => undefined);
        blameLostSession(session, state);
        recordEgressBlocks(session, state, redactor);
        recordBrowserWriteStops(session, state, redactor);
      }
      await session?.release();
    }
    return finish();
  };
}

interface RunDeps {
  state: AttemptState;
  redactor: Redactor;
  deadline: number;
  options: ExecutorOptions;
  /** The network policy narrowed to this task's hosts (layer 1, for goto steps). */
  guard: NetworkGuard;
  /** The attempt's request rules, for every browser hook (judgeRequest). */
  rules: RequestRules;
  /** The task's declared secrets, revealed before the browser opened. */
  held: ReadonlyMap<string, HeldSecret>;
  /** The task's site and saved session, when it names one. */
  site?: AdmittedSite;
  siteRun: SiteRun;
  /** Keeps (or refuses) what the attempt's steps download. */
  downloads: DownloadKeeper;
}

/** What a site task's run learned for saving its session: whether the target loaded, and whether the logged-in check failed. */
interface SiteRun {
  targetLoaded: boolean;
  loggedOut: boolean;
}

/**
 * Saves a site task's session back, before the session's pages close: after a failed logged-in
 * check, that the site is logged out (the session is dropped); otherwise, once the target loaded,
 * the site's cookies and local storage as the browser now holds them (rotated ones included) when
 * the task started with a session (whatever its outcome: an old cookie may no longer be valid) or
 * logged in without error. Every value read is scrubbed from the receipt like a secret.
 */
async function saveSiteSession(
  session: ProviderSession,
  site: AdmittedSite,
  run: SiteRun,
  state: AttemptState,
  redactor: Redactor,
  sites: SiteSessions | undefined,
): Promise<void> {
  if (sites === undefined) return;
  try {
    if (run.loggedOut) {
      await sites.saveSession(site.definition, null, "expired");
      return;
    }
    if (!run.targetLoaded || (site.session === null && state.error !== null)) return;
    const captured = await captureSiteSession(session.context, site.definition.origins);
    if (captured === null) return;
    for (const value of sessionValues(captured)) redactor.add(value);
    await sites.saveSession(site.definition, captured, "saved");
  } catch {
    // The saved session stays as it was; the task's own outcome is what the receipt reports.
  }
}

/** Opens the target, then performs each step in order; stops at the first failure. Returns the page. */
async function runSteps(task: Task, context: AttemptContext, session: ProviderSession, targetHref: string, deps: RunDeps): Promise<Page | null> {
  const { state, redactor, deadline, options, guard, rules, held, site } = deps;
  const hostAllowed = rules.onTaskHosts;
  const secretEgress = rules.secretEgress;
  const write = !rules.readOnly;
  let crossing: Promise<void> | null = null;
  const crossBoundary = (): Promise<void> => {
    crossing ??= context.beforeMutationBoundary().then(() => {
      state.mutationBoundary = "crossed";
    });
    return crossing;
  };

  let page: Page | null = null;
  const fetchDocument = session.fetchDocument;
  await installGuards(session.context, {
    rules,
    state,
    redactor,
    mainPage: () => page,
    beforeMutationBoundary: crossBoundary,
    ...(fetchDocument === undefined ? {} : { fetchDocument }),
    ...(session.requestJudged === undefined
      ? {}
      : { requestJudged: (url: string, stopped?: { code: string; reason: string }) => session.requestJudged?.(url, stopped) }),
    refuseOversizeDownload: () => deps.downloads.refuseOversizeNavigation(),
  });
  // The guards above cover every page of the context, one the provider opened ahead included.
  page = session.page ?? (await session.context.newPage());
  deps.downloads.watch(session.context, page);
  const tabs = new NewTabs(session.context);
  const pages = guardPages(session.context, page, state, (download) => deps.downloads.onDownload(download), tabs);
  await tabs.watch(page);
  // An unloading document sends requests that route() never sees: a read_only page's writes, and
  // whatever a page does with a typed secret. This judges them by the same rules, on every page the task drives.
  const needsUnloadGuard = !write || task.steps.some((step) => step.action === "fill_secret");
  const guardUnloadOf = (driven: Page): Promise<void> =>
    guardUnload(session.context, driven, unloadJudge(rules, session.context), (stopped, refusal) => {
      const url = redactor.scrub(stopped.url);
      const reason = redactor.scrub(refusal.reason);
      // A navigation this guard stopped first stops the page as route()'s refusal would have.
      const stopsPage = stopped.topLevelNavigation && refusal.rule !== "method";
      if (stopsPage) flagNavigation(state, refusal.code, stoppedNavigationMessage(refusal), `${url}: ${reason}`);
      state.recordBlocked(
        { url, method: stopped.method, resourceType: stopped.resourceType, code: refusal.code, reason },
        blockedKind(refusal.rule, stopsPage),
      );
    });
  if (needsUnloadGuard) await guardUnloadOf(page);
  /** Continues the task in a tab a click opened on a task host, under the same page guards as the first. */
  const follow = async (opened: Page): Promise<void> => {
    page = opened;
    pages.follow(opened);
    await tabs.watch(opened);
    if (needsUnloadGuard) await guardUnloadOf(opened);
  };
  const onAbort = () => void page?.close().catch(() => undefined);
  context.signal.addEventListener("abort", onAbort, { once: true });

  const wantedStepTimeout = (index: number): number => task.steps[index]?.timeoutMs ?? task.timeouts?.stepMs ?? options.defaultStepTimeoutMs;
  const stepTimeout = (index: number): number => Math.max(1, Math.min(wantedStepTimeout(index), deadline - Date.now()));
  const taskBudgetMs = task.timeouts?.taskMs ?? options.defaultTaskTimeoutMs;
  const fail = (code: ErrorCode, message: string, step: number | null, detail?: string, timing?: TimeoutTiming) => {
    const violation = state.navigationViolation;
    state.error =
      violation !== null
        ? { code: asErrorCode(violation.code, "navigation_blocked"), message: violation.message, step, detail: untrusted(violation.detail) }
        : {
            code,
            message: redactor.scrub(message),
            step,
            ...(detail === undefined || detail === "" ? {} : { detail: untrusted(redactor.scrub(detail)) }),
            ...(timing === undefined ? {} : { timing }),
          };
  };

  const targetBegan = Date.now();
  const targetWanted = options.defaultStepTimeoutMs * 2;
  const targetBudgetBound = deadline - targetBegan < targetWanted;
  try {
    const response = await page.goto(targetHref, { timeout: Math.max(1, Math.min(targetWanted, deadline - targetBegan)), waitUntil: "load" });
    if (response !== null) state.targetStatus = response.status();
  } catch (error) {
    const waitedMs = Date.now() - targetBegan;
    if (context.signal.aborted) fail("cancelled", "The operation was cancelled while the target was loading.", null);
    else if (isTimeout(error) && targetBudgetBound)
      fail(
        "task_timeout",
        `The task's time (${taskBudgetMs} ms) ran out while the target was loading, after ${waitedMs} ms waiting for the browser (the browser itself took the rest to start).`,
        null,
        firstLine(error),
        { phase: "navigation", waitedMs },
      );
    else fail(isTimeout(error) ? "timeout" : "step_failed", "Opening the target failed; error.detail has the browser's reason.", null, firstLine(error));
    return page;
  }
  if (state.navigationViolation !== null) {
    fail("navigation_blocked", "", null);
    return page;
  }
  deps.siteRun.targetLoaded = true;
  const selector = site?.definition.loggedInSelector ?? null;
  if (site !== undefined && site.checkLoggedIn && selector !== null && !(await showsLoggedIn(page, selector, deadline - Date.now()))) {
    deps.siteRun.loggedOut = true;
    const loginPage = options.sites?.loginPageUrl(site.definition.name) ?? "";
    fail("login_required", loginRequiredMessage(site.definition.name, loginPage, "its logged-in check did not find its selector on the target page"), null);
    return page;
  }

  // The page steps run on: the target's, until a click continues in a new tab.
  let current: Page = page;
  const env = {
    timeoutMs: 0,
    fillSecret: async (step: FillSecretStep, timeoutMs: number) => {
      const secret = held.get(step.secret);
      if (secret === undefined) throw new StepFailure("secret_unknown", `The secret ${step.secret} was not revealed before the browser opened.`);
      await typeSecret(current, step, secret, timeoutMs, async (text) => {
        // The boundary is crossed only once the site binding held, so a refused secret leaves a write BLOCKED.
        if (write) await crossBoundary();
        // A TOTP code exists only from now on: from here it is scrubbed and guarded like a value.
        redactor.add(text);
        secretEgress.arm({ name: secret.name, sites: secret.sites, value: text }, redactor.patternOf(text));
      });
    },
    approveNavigation: async (url: string) => {
      // The task's own hosts first: an off-list host is named as such, not reported as whatever its lookup gives.
      if (!hostAllowed(url))
        throw new StepFailure(
          "navigation_blocked",
          `goto ${redactor.scrub(url)} goes to ${hostOf(url)}, which is not one of the task's hosts; add it to allowedHosts if it is meant.`,
        );
      const verdict = await guard.preflight(url);
      state.network.preflight.push(verdict);
      if (verdict.verdict === "block" || verdict.href === null)
        throw new StepFailure(asErrorCode(verdict.code, "network_blocked"), `goto ${redactor.scrub(url)} was refused: ${verdict.reason}`);
      if (!hostAllowed(verdict.href))
        throw new StepFailure("navigation_blocked", `goto ${redactor.scrub(url)} leaves the task's hosts; add its host to allowedHosts if it is meant.`);
      return verdict.href;
    },
    uploadBytes: async (file: UploadStep["file"], timeoutMs: number) => {
      if (typeof file !== "string") {
        const bytes = await deps.downloads.bytesOf(file.download, timeoutMs);
        if (typeof bytes === "string") throw new StepFailure("file_unknown", `The upload names ${bytes}.`);
        return { name: `download-${file.download}`, mimeType: sniffMediaType(bytes), buffer: bytes };
      }
      if (options.files === undefined) throw new StepFailure("file_unknown", `The upload names the file ${file}, and this errand has no owner files.`);
      try {
        const buffer = await options.files.read(file);
        return { name: file, mimeType: sniffMediaType(buffer), buffer };
      } catch (error) {
        if (error instanceof OwnerFileError) throw new StepFailure(error.code === "file_unreadable" ? "file_unreadable" : "file_unknown", error.message);
        throw error;
      }
    },
    scrub: (text: string) => redactor.scrub(text),
    onTaskHosts: hostAllowed,
    beforeAct: () => (write ? crossBoundary() : Promise.resolve()),
  };

  for (const [index, step] of task.steps.entries()) {
    if (context.signal.aborted) {
      fail("cancelled", `The operation was cancelled before ${stepLabel(index)}.`, index);
      break;
    }
    if (Date.now() >= deadline) {
      fail("task_timeout", `The task's time (${taskBudgetMs} ms) ran out before ${stepLabel(index)} (${step.action}) began.`, index);
      break;
    }
    context.onProgress?.({ kind: "step_started", index, action: step.action, total: task.steps.length });
    // A download is started by a step that acts (a click, a key, a goto), never by a check that runs after it.
    if (MUTATING_ACTIONS.has(step.action) || step.action === "goto") state.runningStep = index;
    const began = Date.now();
    const given = stepTimeout(index);
    // The step got less than its own time because the task's budget ends first: a timeout then is the budget's.
    const budgetBound = given < wantedStepTimeout(index);
    let phase: TimeoutTiming["phase"] = step.action === "goto" ? "navigation" : "waiting";
    const underway: { phase: TimeoutTiming["phase"]; began: number } = { phase, began };
    state.stepUnderway = underway;
    try {
      if (write && MUTATING_ACTIONS.has(step.action) && !CROSSES_ITSELF.has(step.action) && !WAITS_THEN_CROSSES.has(step.action)) await crossBoundary();
      if (step.action === "click") tabs.begin();
      const result = await performStep(step, index, { ...env, page: current, timeoutMs: given, onPhase: (next) => (phase = underway.phase = next) });
      if (step.action === "click") {
        const opened = await tabs.settle({ wanted: step.then === "follow_new_tab", timeoutMs: stepTimeout(index), onTaskHost: hostAllowed });
        state.network.popupsClosed += opened.closed;
        if (opened.follow !== null) {
          await follow(opened.follow);
          current = opened.follow;
        }
      }
      if (result.downloadLink === true) state.pressedAtMs = Date.now();
      if (result.output !== undefined) state.outputs[result.output.name] = result.output.value;
      for (const output of result.outputs ?? []) state.outputs[output.name] = output.value;
      if (result.check !== undefined) state.checks.push(result.check);
      if (state.navigationViolation !== null) throw new StepFailure("navigation_blocked", "");
      if (result.check?.passed === false)
        throw new StepFailure(
          "expectation_failed",
          `Expectation at ${stepLabel(index)} did not hold: expected ${result.check.match} "${result.check.expected}"; what the page showed is in checks[].observed.`,
        );
      state.steps.push({ index, action: step.action, status: "ok", durationMs: Date.now() - began });
      context.onProgress?.({ kind: "step_finished", index, action: step.action, ok: true, durationMs: Date.now() - began });
    } catch (error) {
      state.network.popupsClosed += await tabs.drop();
      state.steps.push({ index, action: step.action, status: "failed", durationMs: Date.now() - began });
      context.onProgress?.({ kind: "step_finished", index, action: step.action, ok: false, durationMs: Date.now() - began });
      if (context.signal.aborted) fail("cancelled", `The operation was cancelled during ${stepLabel(index)} (${step.action}).`, index);
      else if (error instanceof StepFailure && error.code === "timeout" && budgetBound) {
        const waitedMs = Date.now() - began;
        fail(
          "task_timeout",
          `The task's time (${taskBudgetMs} ms) ran out during ${stepLabel(index)} (${step.action}) while ${PHASE_WORDS[phase]}, after ${waitedMs} ms waiting for the browser (the step began ${began - (deadline - taskBudgetMs)} ms into the task); the step's own time had not run out. Give the task more time (timeouts.taskMs) rather than changing the selector.`,
          index,
          error.detail,
          { phase, waitedMs },
        );
      } else if (error instanceof StepFailure) fail(error.code, error.message, index, error.detail);
      else fail("step_failed", `Step ${index} (${step.action}) failed; error.detail has the browser's reason.`, index, firstLine(error));
      if (!context.signal.aborted) state.failure = await failureContextOf(current, step, redactor, hostAllowed);
      break;
    } finally {
      state.stepUnderway = null;
    }
  }
  if (state.error === null && context.observe !== undefined && !current.isClosed()) {
    try {
      await context.observe(current, (text) => redactor.scrub(text));
    } catch (error) {
      fail("step_failed", "Reading the page failed; error.detail has the browser's reason.", null, firstLine(error));
    }
  }
  context.signal.removeEventListener("abort", onAbort);
  for (let index = state.steps.length; index < task.steps.length; index += 1) {
    state.steps.push({ index, action: task.steps[index]?.action ?? "unknown", status: "skipped", durationMs: 0 });
  }
  return page;
}

/**
 * A read_only task that failed after its page tried to write (a login form's POST, say) failed
 * because of that, whatever step noticed it: the error says so in plain words.
 */
function explainReadOnlyWrite(task: Task, state: AttemptState): void {
  if (task.risk !== "read_only" || state.error === null || state.network.nonGetAborted === 0) return;
  const attempt = state.network.blocked.find((b) => b.code === "method_blocked");
  // The method only: the address is page-chosen and this message sits outside the untrusted wrapper (network.blocked lists it).
  const what = attempt === undefined ? "a request other than GET" : `a ${attempt.method.slice(0, 16).replace(/[^A-Z]/gi, "")} request`;
  state.error = {
    ...state.error,
    message: `${state.error.message} Likely cause: this task is read_only and the page tried to send ${what} (a form submit, for example); errand aborted it. If the person wants this write, mark the task reversible_write with approved: true.`,
  };
}

/** The phase of a step a task_timeout message names, in words. */
const PHASE_WORDS: Record<TimeoutTiming["phase"], string> = {
  navigation: "a page was loading",
  waiting: "waiting for its element to appear",
  acting: "acting on its element",
};

/** Time the failure context may take: it is a hint, and the task's own time is already spent. */
const FAILURE_CONTEXT_MS = 3_000;
/** Of it, how long a frame step's frame may take to be reached again. */
const FAILURE_FRAME_MS = 1_000;

/** The failed step's page (URL, title, outline, candidate selectors), or null when the page is gone or too slow. */
async function failureContextOf(
  page: Page,
  step: Task["steps"][number],
  redactor: Redactor,
  onTaskHosts: (url: string) => boolean,
): Promise<FailureContext | null> {
  if (page.isClosed()) return null;
  const selector = "selector" in step ? step.selector : undefined;
  const scrub = (text: string) => redactor.scrub(text);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), FAILURE_CONTEXT_MS);
  });
  const read = (async () => {
    if (step.frame === undefined) return readFailureContext(page, selector, scrub);
    // A frame step's element is looked for in its frame, reached as the step reaches it (never one
    // off the task's hosts); when the frame cannot be reached, the page is described without
    // candidates, which would name elements of the wrong document.
    const frame = await stepRoot(step, 0, { page, timeoutMs: FAILURE_FRAME_MS, onTaskHosts, scrub }).catch(() => null);
    if (frame === null) return readFailureContext(page, undefined, scrub);
    return { ...(await readFailureContext(frame, selector, scrub)), frame: step.frame };
  })().catch(() => null);
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/** Provider failures that refuse the attempt before any browser action (the receipt is BLOCKED). */
const REFUSING_PROVIDER_CODES = new Set<ErrorCode>(["configuration_error", "provider_unconfigured", "provider_auth_failed", "provider_capacity"]);
/** Failures a lost browser causes in whatever step was running; the loss is the better explanation. */
const LOSS_MASKED_CODES = new Set<ErrorCode>(["step_failed", "expectation_failed", "timeout", "task_timeout", "internal_error"]);

/**
 * When the provider ended the session under a failing task (dropped connection, crash, its own
 * session timeout), the step's failure is reported as provider_unavailable: a provider-class
 * failure for the breaker, and for a write past its boundary an UNCERTAIN receipt.
 */
function blameLostSession(session: ProviderSession, state: AttemptState): void {
  const lost = session.lostReason?.() ?? null;
  if (lost === null || state.error === null || !LOSS_MASKED_CODES.has(state.error.code)) return;
  state.error = { code: "provider_unavailable", message: lost, step: state.error.step };
}

/** Adds the egress proxy's refusals to the receipt's network evidence. */
function recordEgressBlocks(session: ProviderSession, state: AttemptState, redactor: Redactor): void {
  for (const refused of session.egressBlocked?.() ?? []) {
    state.recordBlocked(
      {
        url: redactor.scrub(`${refused.host}:${refused.port}`),
        method: refused.method,
        resourceType: "connection",
        code: refused.code,
        reason: redactor.scrub(refused.reason),
      },
      "egress",
    );
  }
}

/**
 * Adds the writes the browser itself refused (a local read_only session's browser-wide stop) to the
 * receipt: each counts as a stopped write (nonGetAborted), the first ones listed like the guards' own.
 */
function recordBrowserWriteStops(session: ProviderSession, state: AttemptState, redactor: Redactor): void {
  const stopped = session.writesStopped?.();
  if (stopped === undefined) return;
  for (const write of stopped.listed) {
    state.recordBlocked(
      {
        url: redactor.scrub(write.url),
        method: write.method,
        resourceType: write.resourceType,
        code: "method_blocked",
        reason: `${write.method} is not allowed in a read_only task (stopped by the read_only browser)`,
      },
      "method",
    );
  }
  state.network.nonGetAborted += Math.max(0, stopped.count - stopped.listed.length);
}

class HardStop extends ErrandError {
  constructor() {
    super("timeout", "The task ran out of its time budget.");
  }
}

/** The provider ended the session and the run did not fail by itself within LOST_SESSION_GRACE_MS. */
class SessionLost extends ErrandError {
  constructor(reason: string) {
    super("provider_unavailable", reason);
  }
}

/**
 * Time a run gets, once its browser is gone, to fail on its own (Playwright rejects most pending
 * calls at once, and the step's failure is then blamed on the loss) before errand stops waiting.
 */
const LOST_SESSION_GRACE_MS = 500;

/**
 * The run's result, or SessionLost when the provider ended the session and the run is still
 * pending after the grace: a page still initializing when the CDP connection dropped never settles
 * in Playwright, which would hold the attempt until its whole budget ran out.
 */
async function untilSessionLost<T>(work: Promise<T>, whenLost: Promise<string> | undefined): Promise<T> {
  if (whenLost === undefined) return work;
  const lostFirst = whenLost.then(async (reason) => {
    await delay(LOST_SESSION_GRACE_MS, undefined, { ref: false });
    return new SessionLost(reason);
  });
  const first = await Promise.race([work, lostFirst]);
  if (first instanceof SessionLost) throw first;
  return first;
}

function withHardStop<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const stop = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HardStop()), ms);
  });
  return Promise.race([work, stop]).finally(() => clearTimeout(timer));
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "a host errand cannot read";
  }
}
