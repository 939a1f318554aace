import { randomUUID } from "node:crypto";
import type { Problem } from "../errors/result.js";
import type { PageOutline } from "../receipt/outlineTypes.js";
import type { NetworkEvidence, ReceiptError } from "../receipt/receiptTypes.js";
import { SCHEMA_VERSION } from "../task/limits.js";
import { validateTask } from "../task/validateTask.js";
import type { ExecuteTask } from "./executeTaskTypes.js";
import { readFrameOutlines } from "./frameOutline.js";
import { createHostAllowlist } from "./hostAllowlist.js";
import { readPageOutline } from "./pageOutline.js";
import { SCREENSHOT_LIMITS, takeScreenshot } from "./takeScreenshot.js";

/** The fields a look request may carry (CLI flags, REST body, MCP arguments). */
const LOOK_FIELDS = ["url", "allowedHosts", "site", "screenshot"] as const;

/** A look's screenshot: the viewport, bounded in bytes (src/executor/takeScreenshot.ts, the one home of screenshots). */
export const LOOK_SCREENSHOT = { maxBytes: SCREENSHOT_LIMITS.maxBytes, maskColor: SCREENSHOT_LIMITS.maskColor } as const;

export interface LookScreenshot {
  mimeType: "image/png" | "image/jpeg";
  bytes: number;
  sha256: string;
  /** Base64 of the image. */
  data: string;
}

export interface LookNetwork {
  nonGetAborted: number;
  blockedRequests: number;
  navigationsBlocked: number;
  egressBlocked: number;
  blocked: NetworkEvidence["blocked"];
}

export type LookResult =
  | { ok: true; outline: PageOutline; provider: string; durationMs: number; network: LookNetwork; screenshot?: LookScreenshot; screenshotOmitted?: string }
  | { ok: false; kind: "invalid"; problems: Problem[] }
  | { ok: false; kind: "failed"; status: string; error: ReceiptError; provider: string; network: LookNetwork };

/**
 * The read_only task a look runs: open the URL, then one step that holds on any loaded document
 * (reading the root's text; a visibility wait fails on pages whose content is all positioned out
 * of the root's box). Never types or clicks; the text read is not returned.
 */
function lookTask(request: Record<string, unknown>): unknown {
  return {
    schemaVersion: SCHEMA_VERSION,
    operationId: randomUUID(),
    label: "look",
    ...(request["site"] === undefined ? {} : { site: request["site"] }),
    target: { url: request["url"] },
    ...(request["allowedHosts"] === undefined ? {} : { allowedHosts: request["allowedHosts"] }),
    risk: "read_only",
    steps: [{ action: "extract_text", selector: "html", name: "look" }],
  };
}

/** A task problem's path as the look request names it (/target/url is the request's /url). */
function requestPath(path: string): string {
  return path === "/target/url" || path === "/target" ? "/url" : path;
}

/**
 * Looks at one page for an assistant that must write a task: the same executor, network policy,
 * guards, egress proxy, allowances and timeouts as a read_only task (it is one, with a single
 * wait), and an outline read while the page is still guarded. Nothing is stored: a look is not an
 * operation. Never types, clicks or submits.
 */
export async function lookAtPage(execute: ExecuteTask, request: unknown): Promise<LookResult> {
  if (typeof request !== "object" || request === null || Array.isArray(request))
    return {
      ok: false,
      kind: "invalid",
      problems: [{ code: "invalid_type", path: "", message: "A look request is an object with url (and optionally allowedHosts, site and screenshot)." }],
    };
  const fields = request as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !(LOOK_FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    return {
      ok: false,
      kind: "invalid",
      problems: unknown.map((key) => ({
        code: "unknown_field",
        path: `/${key.slice(0, 40)}`,
        message: `Unknown field; a look takes ${LOOK_FIELDS.join(", ")}.`,
      })),
    };
  if (!Object.hasOwn(fields, "url"))
    return { ok: false, kind: "invalid", problems: [{ code: "missing_field", path: "/url", message: "A look needs url: the http(s) page to open." }] };
  const checked = validateTask(lookTask(fields));
  if (!checked.ok) return { ok: false, kind: "invalid", problems: checked.errors.map((p) => ({ ...p, path: requestPath(p.path) })) };

  if (fields["screenshot"] !== undefined && typeof fields["screenshot"] !== "boolean")
    return { ok: false, kind: "invalid", problems: [{ code: "invalid_type", path: "/screenshot", message: "screenshot is true or false." }] };
  let outline: PageOutline | undefined;
  // A frame is read only where a step could act in it: on the task's hosts, as stepFrame.ts checks.
  const onTaskHosts = createHostAllowlist(checked.value);
  let shot: LookScreenshot | string | undefined;
  const outcome = await execute(checked.value, {
    requestDigest: "look",
    attempt: 1,
    signal: new AbortController().signal,
    beforeMutationBoundary: () => Promise.reject(new Error("a look never writes")),
    observe: async (page, scrub) => {
      const frames = await readFrameOutlines(page, { onTaskHosts, scrub });
      outline = { ...(await readPageOutline(page, scrub)), ...(frames.length === 0 ? {} : { frames }) };
      if (fields["screenshot"] === true) {
        // Password fields masked; a look types nothing, so no other field holds a secret.
        const taken = await takeScreenshot(page, { mask: "passwords", maxBytes: LOOK_SCREENSHOT.maxBytes });
        shot = taken.ok
          ? { mimeType: taken.shot.mimeType, bytes: taken.shot.bytes, sha256: taken.shot.sha256, data: taken.shot.image.toString("base64") }
          : taken.reason;
      }
    },
  });
  const { receipt } = outcome;
  const n = receipt.network;
  const network: LookNetwork = {
    nonGetAborted: n.nonGetAborted,
    blockedRequests: n.blockedRequests,
    navigationsBlocked: n.navigationsBlocked,
    egressBlocked: n.egressBlocked,
    blocked: n.blocked,
  };
  if (receipt.error !== null || outline === undefined) {
    const error = receipt.error ?? { code: "internal_error" as const, message: "The page was opened but could not be outlined.", step: null };
    return { ok: false, kind: "failed", status: receipt.status, error, provider: receipt.provider, network };
  }
  const image = typeof shot === "object" ? { screenshot: shot } : typeof shot === "string" ? { screenshotOmitted: shot } : {};
  return { ok: true, outline, provider: receipt.provider, durationMs: receipt.durationMs, network, ...image };
}
