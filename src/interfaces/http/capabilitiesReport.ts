import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { COLLECT_LIMITS } from "../../operations/collectOperation.js";
import { stepActionFields } from "../../task/stepFieldBounds.js";
import { taskGuide } from "../../task/taskGuide.js";
import type { AppDeps } from "./httpDeps.js";
import type { AnyTool } from "./mcp/toolDefinition.js";
import { SUPPORTED_SCOPES } from "./oauth/scopes.js";
import { PAGE_TEXT_LIMITS } from "./presentResult.js";
import { REST_ENDPOINTS } from "./rest/restEndpoints.js";
import { WAIT_SECONDS } from "./waitBounds.js";
import { largestFittingTaskMs, requestDeadlineMs } from "../../core/decideRequestFit.js";

/**
 * What this server is and what it holds calls to: the one answer of the errand_capabilities tool
 * and of GET /v1/capabilities. Every fact is read from the code that decides it (the tools, the
 * routes, the validator's action set, the wait table, the body and page-text caps), never restated.
 */
export function capabilitiesReport(deps: AppDeps, tools: readonly AnyTool[]) {
  const guide = taskGuide();
  return {
    server: { name: "errand", version: deps.version, commit: deps.commit },
    protocol: { latest: LATEST_PROTOCOL_VERSION, supported: [...SUPPORTED_PROTOCOL_VERSIONS] },
    taskSchemaVersion: guide.schemaVersion,
    receiptVersion: "errand.receipt.v1",
    tools: tools.map((t) => ({
      name: t.name,
      readOnly: t.annotations.readOnlyHint,
      destructive: t.annotations.destructiveHint,
      openWorld: t.annotations.openWorldHint,
    })),
    rest: REST_ENDPOINTS.map((e) => ({ method: e.method, path: e.path, summary: e.summary })),
    oauthScopes: [...SUPPORTED_SCOPES],
    taskActions: stepActionFields().map((entry) => ({ ...entry, changesSite: guide.actions.find((a) => a.action === entry.action)?.changesSite ?? true })),
    limits: {
      task: guide.limits,
      waitSeconds: WAIT_SECONDS,
      collectTimeoutMs: COLLECT_LIMITS.timeoutMs,
      bodyBytes: deps.settings.limits,
      pageText: PAGE_TEXT_LIMITS,
      request: requestLimitReport(deps),
    },
    providers: deps.providers(),
  };
}

/**
 * The platform's request limit this server keeps within (ERRAND_REQUEST_LIMIT), as errand_run obeys
 * it: null seconds when nothing cuts a request or a worker pool runs the tasks.
 */
function requestLimitReport(deps: AppDeps): { limitSeconds: number | null; largestTaskMs: number | null; note: string } {
  const limitMs = deps.workers === undefined ? deps.queue.requestLimitMs : null;
  if (limitMs === null) {
    return {
      limitSeconds: null,
      largestTaskMs: null,
      note:
        deps.workers === undefined
          ? "No request limit: errand_run runs the task in this server and waits up to waitSeconds."
          : "No request limit: this server's workers run tasks; errand_run waits up to waitSeconds.",
    };
  }
  const largestTaskMs = largestFittingTaskMs(requestDeadlineMs(0, limitMs));
  return {
    limitSeconds: Math.floor(limitMs / 1000),
    largestTaskMs,
    note:
      "The platform ends every request at limitSeconds. errand_run starts a task within its request only when its longest attempt fits (timeouts.taskMs up to largestTaskMs), " +
      "waits up to waitSeconds or until 2 s before the limit, whichever is sooner; a longer task is queued, not started, for the scheduled queue pass or a runner sharing the database.",
  };
}
