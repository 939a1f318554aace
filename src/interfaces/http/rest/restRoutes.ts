import { Hono } from "hono";
import type { Context } from "hono";
import { ApiError } from "../apiError.js";
import { capabilitiesReport } from "../capabilitiesReport.js";
import type { FailureLimiter } from "../failureLimiter.js";
import type { AppDeps, AppEnv } from "../httpDeps.js";
import {
  cancelOperation,
  collectOperation,
  inspectOperation,
  lookAtPageAction,
  readArtifactAction,
  runQueueNow,
  statusReport,
  submitTask,
} from "../operationActions.js";
import type { Caller } from "../operationActions.js";
import { TOOLS } from "../mcp/toolList.js";
import { readBoundedBody } from "../readBody.js";
import type { ArtifactMediaType } from "../../../receipt/artifactTypes.js";
import { WAIT_SECONDS } from "../waitBounds.js";
import type { RestWaitingRoute } from "../waitBounds.js";
import { providerSmokeAction } from "../providerSmokeAction.js";
import { openApiDocument } from "./openApiDocument.js";
import { requireApiToken } from "./requireApiToken.js";

async function readJson(c: Context, deps: AppDeps, optional: boolean): Promise<unknown> {
  const body = await readBoundedBody(c.req.raw, deps.settings.limits.restBytes);
  if (!body.ok) throw new ApiError("request_too_large", `The body is over ${deps.settings.limits.restBytes} bytes.`);
  if (body.text.trim() === "" && optional) return {};
  try {
    return JSON.parse(body.text) as unknown;
  } catch {
    throw new ApiError("invalid_json", "The body is not JSON.");
  }
}

function objectBody(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ApiError("invalid_type", "The body must be a JSON object.");
  return value as Record<string, unknown>;
}

/** The body's waitSeconds within the route's row of WAIT_SECONDS (refused past it, never clamped), in ms. */
function waitMs(body: Record<string, unknown>, route: RestWaitingRoute): number {
  const { default: fallback, max } = WAIT_SECONDS.rest[route];
  const raw = body["waitSeconds"] ?? fallback;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0 || raw > max)
    throw new ApiError("invalid_number", `waitSeconds must be a whole number from 0 to ${max}.`);
  return raw * 1000;
}

function onlyFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((key) => !allowed.includes(key));
  if (extra !== undefined) throw new ApiError("unknown_field", `Unknown field "${extra.slice(0, 40)}"; allowed: ${allowed.join(", ") || "none"}.`);
}

/** The file name extension of each artifact media type, for the download's suggested name. */
const FILE_EXTENSIONS: Record<ArtifactMediaType, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "application/pdf": "pdf",
  "application/zip": "zip",
  "text/plain": "txt",
  "application/octet-stream": "bin",
};

/** /v1: the REST API over the same actions as the MCP tools, for scripts and GPT Actions. */
export function restRoutes(deps: AppDeps, limiter: FailureLimiter): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  const caller = (c: Context<AppEnv>): Caller => ({ principal: c.get("principal"), via: "rest" });
  api.use("*", requireApiToken(deps, limiter));

  api.post("/operations", async (c) => {
    const result = await submitTask(deps, caller(c), await readJson(c, deps, false));
    return c.json(result, result.created ? 201 : 200);
  });
  api.get("/operations/:operationId", async (c) => c.json(await inspectOperation(deps, caller(c), c.req.param("operationId"))));
  api.post("/operations/:operationId/collect", async (c) => {
    const body = objectBody(await readJson(c, deps, true));
    onlyFields(body, ["waitSeconds"]);
    return c.json(await collectOperation(deps, caller(c), c.req.param("operationId"), waitMs(body, "collectOperation")));
  });
  api.get("/operations/:operationId/artifacts/:index", async (c) => {
    const raw = c.req.param("index");
    if (!/^\d{1,6}$/.test(raw)) throw new ApiError("invalid_number", "The artifact index is a whole number from 0 (the receipt's artifacts[].index).");
    const { artifact, data } = await readArtifactAction(deps, caller(c), c.req.param("operationId"), Number(raw));
    // The raw file (screenshot or download), never rendered as a page: its type, its hash for the caller's own check, no sniffing, no caching.
    return c.body(new Uint8Array(data), 200, {
      "content-type": artifact.mediaType,
      "content-length": String(data.length),
      "x-errand-sha256": artifact.sha256,
      "content-disposition": `attachment; filename="errand-${c.req
        .param("operationId")
        .slice(0, 64)
        .replace(/[^0-9a-zA-Z-]/g, "")}-${artifact.index}.${FILE_EXTENSIONS[artifact.mediaType]}"`,
      "cache-control": "no-store",
    });
  });
  api.post("/operations/:operationId/cancel", async (c) => {
    const body = objectBody(await readJson(c, deps, true));
    onlyFields(body, ["controlActionId"]);
    const controlActionId = body["controlActionId"];
    if (controlActionId !== undefined && typeof controlActionId !== "string") throw new ApiError("invalid_type", "controlActionId must be a UUID string.");
    return c.json(await cancelOperation(deps, caller(c), c.req.param("operationId"), controlActionId));
  });
  api.post("/runner", async (c) => {
    const body = objectBody(await readJson(c, deps, true));
    onlyFields(body, ["waitSeconds"]);
    return c.json(await runQueueNow(deps, caller(c), waitMs(body, "runQueue")));
  });
  api.post("/look", async (c) => c.json(await lookAtPageAction(deps, caller(c), objectBody(await readJson(c, deps, false)))));
  // Provider activation is the operator's act: only an operator token (--scope all) runs it over REST.
  api.post("/providers/:name/smoke", async (c) => {
    if (!c.get("principal").requester.seesAll)
      throw new ApiError("unauthorized", "Only an operator token (errand token create --scope all) may smoke a provider over REST.", {
        headers: { "www-authenticate": 'Bearer realm="errand", error="insufficient_scope"' },
      });
    onlyFields(objectBody(await readJson(c, deps, true)), []);
    return c.json(await providerSmokeAction(deps, caller(c), c.req.param("name")));
  });
  api.get("/status", async (c) => c.json(await statusReport(deps)));
  api.get("/capabilities", (c) => c.json(capabilitiesReport(deps, TOOLS)));
  api.get("/openapi.json", (c) => c.json(openApiDocument(deps.settings, deps.version)));
  return api;
}
