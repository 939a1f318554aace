import * as z from "zod/v4";
import { cancelOperation, inspectOperation, runQueueNow, statusReport } from "../../operationActions.js";
import { handleSchema, nextSchema, providerCapabilitySchema, statusSchema } from "../outputSchemas.js";
import { defineTool } from "../toolDefinition.js";
import { waitSecondsArgument } from "../toolWaits.js";

export const runQueueTool = defineTool({
  name: "errand_run_queue",
  title: "Run queued browser tasks",
  description: "Use this rarely: errand serve's workers run queued tasks themselves. Waits up to waitSeconds until none is due; then errand_collect each.",
  input: z.object({ waitSeconds: waitSecondsArgument("errand_run_queue") }),
  output: z.object({
    finished: z.boolean().describe("True when the queue was drained within the wait."),
    attempts: z
      .array(
        z.object({
          operationId: z.string().describe("Operation run."),
          attempt: z.number().int().describe("Attempt number."),
          outcome: z.string().describe("finished, requeued (will retry), lease_lost or abandoned."),
          phase: z.string().nullable().describe("The operation's phase afterwards."),
          status: z.string().nullable().describe("The attempt's receipt status."),
        }),
      )
      .describe("Attempts made by this run (empty while still running)."),
    recovered: z.number().int().describe("Operations whose lease ran out without renewal, recovered (their runner crashed, or was alive but starved)."),
    stoppedBecause: z.string().nullable().describe("drained, max, budget or aborted; null while running."),
    lastError: z.string().nullable().describe("Why the last run of the queue failed, if it did."),
    next: nextSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: false },
  handler: ({ waitSeconds }, { deps, principal }) => runQueueNow(deps, { principal, via: "mcp" }, waitSeconds * 1000),
  summarize: (output) => (output.finished ? `Queue run finished: ${output.attempts.length} attempt(s).` : "Queue is still running in the background."),
});

export const inspectTool = defineTool({
  name: "errand_inspect",
  title: "Inspect a task",
  description: "Use this to see one task's phase, attempts, lease and retry timing.",
  input: z.object({ operationId: z.string().min(1).max(64).describe("The task's operationId.") }),
  output: z.object({
    status: statusSchema,
    handle: handleSchema,
    operation: z.record(z.string(), z.unknown()).optional().describe("risk, attempts, maxAttempts, receiptStatus, cancelRequested, timestamps, lease."),
    attempts: z.array(z.record(z.string(), z.unknown())).optional().describe("Each attempt: runner, start and end, outcome, error code, provider."),
    compacted: z.record(z.string(), z.unknown()).optional().describe("What remains of a compacted operation."),
    next: nextSchema,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: ({ operationId }, { deps, principal }) => inspectOperation(deps, { principal, via: "mcp" }, operationId) as never,
  summarize: (output) => `Operation ${output.handle.operationId}: ${output.status} (phase ${output.handle.phase}, revision ${output.handle.revision}).`,
});

export const cancelTool = defineTool({
  name: "errand_cancel",
  title: "Cancel a task",
  description:
    "Use this only when the person asks to stop a task. It stops before the site is changed; a write already under way is not interrupted (uncertain).",
  input: z.object({
    operationId: z.string().min(1).max(64).describe("The task's operationId."),
    controlActionId: z.uuid().optional().describe("A UUID for this cancel; reuse it to retry."),
  }),
  output: z.object({
    status: statusSchema,
    outcome: z.enum(["cancelled", "cancel_requested", "uncertain", "already_terminal"]).describe("What the cancel did."),
    repeated: z.boolean().describe("True when this controlActionId had already been applied."),
    handle: handleSchema,
    next: nextSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: ({ operationId, controlActionId }, { deps, principal }) => cancelOperation(deps, { principal, via: "mcp" }, operationId, controlActionId) as never,
  summarize: (output) => `Operation ${output.handle.operationId}: ${output.outcome}.`,
});

export const statusTool = defineTool({
  name: "errand_status",
  title: "errand status",
  description: "Use this to see errand's state: operations per phase, queue, journal quota, provider circuits.",
  input: z.object({}),
  output: z.object({
    operations: z.record(z.string(), z.number()).describe("Operations per phase."),
    queue: z
      .object({
        expiredLeases: z.number().int().describe("Running operations whose lease ran out without renewal (recovered by the next run)."),
        delayedRetries: z.number().int().describe("Queued operations waiting for their retry delay."),
        nextEligibleAt: z.string().nullable().describe("When the next delayed retry becomes eligible."),
        drainingHere: z.boolean().describe("True while this server is running the queue."),
        lastError: z.string().nullable().describe("Why the last queue run failed, if it did."),
      })
      .describe("The queue."),
    journal: z
      .object({ events: z.number().int(), storedBytes: z.number().int(), quotaBytes: z.number().int(), tombstones: z.number().int() })
      .describe("The authenticated journal: events, bytes stored against the quota, tombstones."),
    breakers: z
      .array(z.object({ provider: z.string(), state: z.string(), failures: z.number().int(), openUntil: z.string().nullable() }))
      .describe("Provider circuit breakers (CLOSED, OPEN, HALF_OPEN)."),
    providers: z.array(providerCapabilitySchema).describe("Browser providers and whether this server can use them."),
    budgets: z
      .object({ enforced: z.boolean(), note: z.string(), caps: z.array(z.record(z.string(), z.unknown())) })
      .describe("Cloud provider budget caps the router enforces, with their use."),
    schemaVersion: z.number().int().describe("Database schema version."),
    sites: z
      .array(
        z.object({
          name: z.string(),
          origins: z.array(z.string()),
          loggedIn: z.boolean(),
          grants: z.array(z.object({ id: z.string(), risk: z.string(), secrets: z.array(z.string()), expiresAt: z.string() })),
        }),
      )
      .describe(
        "Sites the owner set up: name a task's \"site\" to start logged in; loggedIn false: ask the person to log in first. grants: the owner's standing grants (tasks on the site up to that risk, typing only those secrets, run without waiting for the owner).",
      ),
  }),
  listOutputFields: false,
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: (_args, { deps }) => statusReport(deps) as never,
  summarize: (output) =>
    `Operations: ${
      Object.entries(output.operations)
        .filter(([, n]) => n > 0)
        .map(([phase, n]) => `${phase} ${n}`)
        .join(", ") || "none"
    }; journal ${output.journal.storedBytes}/${output.journal.quotaBytes} bytes.`,
});
