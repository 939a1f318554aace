import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import type { BrowserContext, Download, Frame, Page, Request } from "playwright-core";
import { ARTIFACT_LIMITS } from "../receipt/artifactTypes.js";
import type { ArtifactBytes, DownloadRecord } from "../receipt/artifactTypes.js";
import type { AttemptState } from "./attemptState.js";
import { judgeRequest } from "./judgeRequest.js";
import type { RequestRule, RequestRules } from "./judgeRequest.js";
import { sniffMediaType } from "./sniffMediaType.js";

export interface DownloadKeeperOptions {
  state: AttemptState;
  /** The attempt's request rules: a download is judged as a top-level navigation to its URL, so one from off the task's hosts is refused. */
  rules: RequestRules;
  /** ERRAND_DOWNLOAD_MAX_BYTES: bytes of the attempt's kept downloads together. */
  maxBytes: number;
}

/** What the attempt did with one download, once it settled. */
type Settled = { kept: ArtifactBytes & DownloadRecord } | { refused: true };

/**
 * Keeps the files an attempt's steps download from the task's hosts, as artifacts of the
 * operation: each is read whole once the browser finished it, hashed (SHA-256), its media type
 * sniffed from its bytes, and listed in the receipt (state.artifacts) with the step that was
 * running when it started. Refused and counted (network.downloadsRefused, listed in
 * state.downloadRefusals): a download from another host (cancelled, as every download was before
 * errand kept any), one that would take the attempt's downloads past ERRAND_DOWNLOAD_MAX_BYTES or
 * ARTIFACT_LIMITS.downloadCount (download_too_large: the task fails at that step), and one that
 * failed or had not finished when the attempt ended (step_failed). The browser's own copy is
 * deleted once read (and with the context in any case).
 */
export class DownloadKeeper {
  private started = 0;
  /** Set once the attempt stopped waiting: a read failing after that was already counted as unfinished. */
  private ended = false;
  private keptBytes = 0;
  private keptCount = 0;
  private readonly pending: Promise<Settled>[] = [];
  private readonly downloads: Download[] = [];
  /** Navigations in flight: a download arrives as a navigation's answer, announced after its request ended. */
  private readonly navigating = new Set<Request>();
  /**
   * Navigations that were answered but neither became a document nor were announced as a download
   * yet, by URL, with when they were answered: the browser announces a download up to a second or
   * more after its answer on a loaded machine.
   */
  private readonly unresolved = new Map<string, number>();
  /** When each navigation was sent, to tell its own document from an earlier one at the same address. */
  private readonly sentMs = new WeakMap<Request, number>();
  /** Each frame's last committed document: its address and when it committed. */
  private readonly committed = new WeakMap<Frame, { url: string; atMs: number }>();

  constructor(private readonly options: DownloadKeeperOptions) {}

  /** Watches the context's navigations, so settle can tell a download still on its way from none coming. */
  watch(context: BrowserContext, page: Page): void {
    context.on("request", (request) => {
      if (!request.isNavigationRequest()) return;
      this.navigating.add(request);
      this.sentMs.set(request, Date.now());
      // The hop it was redirected from answered with this navigation, not with a download.
      const from = request.redirectedFrom();
      if (from !== null) this.unresolved.delete(from.url());
    });
    context.on("requestfinished", (request) => {
      if (!this.navigating.delete(request)) return;
      // A redirect's answer is followed by a navigation of its own, watched in turn.
      if (request.redirectedTo() !== null) return;
      // A document usually commits before its body has finished arriving: it is no download then.
      if (this.becameDocument(request)) return;
      this.unresolved.set(request.url(), Date.now());
    });
    context.on("requestfailed", (request) => {
      this.navigating.delete(request);
    });
    const commits = (watched: Page) =>
      watched.on("framenavigated", (frame) => {
        const url = withoutFragment(frame.url());
        this.committed.set(frame, { url, atMs: Date.now() });
        this.unresolved.delete(url);
      });
    commits(page);
    context.on("page", (opened) => {
      if (opened !== page) commits(opened);
    });
  }

  /** True when the navigation's own frame committed a document at its address after it was sent. */
  private becameDocument(request: Request): boolean {
    let frame: Frame;
    try {
      frame = request.frame();
    } catch {
      return false;
    }
    const last = this.committed.get(frame);
    const sent = this.sentMs.get(request);
    return last !== undefined && sent !== undefined && last.atMs >= sent && last.url === withoutFragment(request.url());
  }

  /** True while a navigation is in flight, one answered less than UNRESOLVED_MS ago is neither a page nor an announced download, or a step on a download link ended less than PRESSED_MS ago. */
  private downloadMayCome(): boolean {
    const now = Date.now();
    for (const [url, answeredMs] of this.unresolved) if (now - answeredMs >= UNRESOLVED_MS) this.unresolved.delete(url);
    const pressed = this.options.state.pressedAtMs;
    return this.navigating.size > 0 || this.unresolved.size > 0 || (pressed !== null && now - pressed < PRESSED_MS);
  }

  /** The page's download event: judged at once, read when the browser has it all. */
  onDownload(download: Download): void {
    const { state } = this.options;
    const step = state.runningStep;
    const url = download.url();
    this.unresolved.delete(url);
    if (this.ended) {
      void download.cancel().catch(() => undefined);
      this.refuse(
        step,
        "download_failed",
        "A download started after the attempt had stopped waiting for downloads (its steps had ended and the page was quiet); nothing of it was kept.",
        "step_failed",
      );
      return;
    }
    const verdict = judgeRequest({ url, method: "GET", navigation: true, carries: {}, via: "request" }, this.options.rules);
    if (!verdict.allowed) {
      void download.cancel().catch(() => undefined);
      this.refuse(step, "download_off_host", REFUSED_DOWNLOAD[verdict.rule]);
      return;
    }
    const ordinal = this.started;
    this.started += 1;
    this.downloads[ordinal] = download;
    this.pending[ordinal] = this.read(download, ordinal, step);
  }

  /** Counts a download refused before errand saw it (a navigation's document over the download bound). */
  refuseOversizeNavigation(): void {
    this.refuse(
      this.options.state.runningStep,
      "download_too_large",
      `A download was larger than ${this.options.maxBytes} bytes (ERRAND_DOWNLOAD_MAX_BYTES); errand stopped reading it and kept nothing.`,
      "download_too_large",
    );
  }

  /** The bytes of download `ordinal` (from 0) once it settled, or why there are none. */
  async bytesOf(ordinal: number, timeoutMs: number): Promise<Buffer | string> {
    const pending = this.pending[ordinal];
    if (pending === undefined) return `download ${ordinal} was not started by an earlier step of this attempt (${this.started} started)`;
    const settled = await withTimeout(pending, timeoutMs);
    if (settled === null) return `download ${ordinal} had not finished in time`;
    return "kept" in settled ? settled.kept.data : `download ${ordinal} was refused (receipt downloadRefusals)`;
  }

  /**
   * Waits until no download may still be announced (a click's download is announced a moment
   * after its step ended: see downloadMayCome), then until every download settled, all within
   * `timeoutMs`; the unfinished ones are cancelled and refused. Returns the kept bytes.
   */
  async settle(timeoutMs: number): Promise<ArtifactBytes[]> {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until && this.downloadMayCome()) await delay(POLL_MS);
    const all = await withTimeout(Promise.all(this.pending), until - Date.now());
    this.ended = true;
    if (all === null) {
      for (const download of this.downloads) void download?.cancel().catch(() => undefined);
    }
    const settled = all ?? (await Promise.all(this.pending.map((p) => withTimeout(p, 0))));
    const kept: ArtifactBytes[] = [];
    for (const [ordinal, outcome] of settled.entries()) {
      if (outcome === null)
        this.refuse(null, "download_failed", `Download ${ordinal} had not finished when the attempt ended; nothing of it was kept.`, "step_failed");
      else if ("kept" in outcome) kept.push(outcome.kept);
    }
    return kept;
  }

  private async read(download: Download, ordinal: number, step: number | null): Promise<Settled> {
    const { maxBytes } = this.options;
    try {
      const path = await download.path();
      const size = (await stat(path)).size;
      if (this.keptCount >= ARTIFACT_LIMITS.downloadCount || this.keptBytes + size > maxBytes) {
        const why =
          this.keptCount >= ARTIFACT_LIMITS.downloadCount
            ? `the attempt already kept ${ARTIFACT_LIMITS.downloadCount} downloads, the most one attempt keeps`
            : `its ${size} bytes would take the attempt's downloads past ${maxBytes} bytes (ERRAND_DOWNLOAD_MAX_BYTES)`;
        this.refuse(step, "download_too_large", `Download ${ordinal} was refused: ${why}; nothing of it was kept.`, "download_too_large");
        return { refused: true };
      }
      this.keptBytes += size;
      this.keptCount += 1;
      const data = await readFile(path);
      const record: DownloadRecord = {
        index: this.options.state.artifacts.length,
        kind: "download",
        download: ordinal,
        step,
        mediaType: sniffMediaType(data),
        bytes: data.length,
        sha256: createHash("sha256").update(data).digest("hex"),
      };
      this.options.state.artifacts.push(record);
      return { kept: { ...record, data } };
    } catch {
      if (this.ended) return { refused: true };
      this.refuse(
        step,
        "download_failed",
        `Download ${ordinal} failed or was cancelled before the browser had all of it; nothing of it was kept.`,
        "step_failed",
      );
      return { refused: true };
    } finally {
      void download.delete().catch(() => undefined);
    }
  }

  /** Counts and lists a refused download; one errand refused for its size (or a failed one) fails the task at its step. */
  private refuse(
    step: number | null,
    code: "download_off_host" | "download_too_large" | "download_failed",
    reason: string,
    fails?: "download_too_large" | "step_failed",
  ): void {
    const { state } = this.options;
    state.network.downloadsRefused += 1;
    if (state.downloadRefusals.length < MAX_LISTED_REFUSALS) state.downloadRefusals.push({ step, code, reason });
    if (fails !== undefined && state.downloadFailure === null) state.downloadFailure = { code: fails, message: reason, step };
  }
}

/** How long an answered navigation that is neither a page nor a download is waited for (a 204, say), in ms. */
const UNRESOLVED_MS = 3_000;
/**
 * How long after a click or key press on a download link its download is waited for: the browser's
 * download manager fetches it unseen by the page, so no navigation announces it, in ms.
 */
const PRESSED_MS = 1_000;
const POLL_MS = 50;

/** A URL without its #fragment, which a request's address never carries and a frame's may. */
function withoutFragment(url: string): string {
  const hash = url.indexOf("#");
  return hash === -1 ? url : url.slice(0, hash);
}

/** Why a download was cancelled, by the request rule that refused its address (the address itself is page-chosen and not named). */
const REFUSED_DOWNLOAD: Record<RequestRule, string> = {
  policy: "A download from a host that is not one of the task's hosts was cancelled; nothing of it was kept.",
  hosts: "A download from a host that is not one of the task's hosts was cancelled; nothing of it was kept.",
  site: "A download from another origin on the site's hosts (one the site's cookies would be sent to) was cancelled; nothing of it was kept.",
  secret: "A download whose address carries a typed secret to a site that secret is not bound to was cancelled; nothing of it was kept.",
  method: "A download that was not a GET was cancelled; nothing of it was kept.",
};

/** Refused downloads listed in a receipt; all are counted. */
const MAX_LISTED_REFUSALS = 10;

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), Math.max(0, timeoutMs));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
