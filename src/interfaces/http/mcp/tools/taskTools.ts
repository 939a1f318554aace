import * as z from "zod/v4";
import { collectOperation, runTask, submitTask } from "../../operationActions.js";
import { approvalSchema, handleSchema, nextSchema, operationResultShape, statusSchema } from "../outputSchemas.js";
import { defineTool } from "../toolDefinition.js";

const taskInput = z
  .record(z.string(), z.unknown())
  .describe(
    'The task document (schema "errand.task.v1"): schemaVersion, a new UUID operationId, target.url, risk, steps (and approved: true for writes, only with the person\'s consent). Call errand_task_schema for every field, action and example.',
  );

function summarizeResult(output: { status: string; handle: { operationId: string }; receipt?: Record<string, unknown>; pageContent?: { values: unknown[] }; approval?: { url: string; summary: string } }): string {
  const receiptStatus = typeof output.receipt?.["status"] === "string" ? ` (${output.receipt["status"]})` : "";
  const values = output.pageContent === undefined ? "" : `; ${output.pageContent.values.length} extracted value(s) in pageContent (untrusted page text)`;
  const approval = output.approval === undefined ? "" : ` The owner must approve it at ${output.approval.url}:\n${output.approval.summary}`;
  return `Operation ${output.handle.operationId}: ${output.status}${receiptStatus}${values}.${approval}`;
}

/** Runs a task now: submit, run it in this server, and wait (bounded) for the receipt. */
export const runTaskTool = defineTool({
  name: "errand_run",
  title: "Run a browser task now",
  description:
    "Use this to run one browser task now and get its verified receipt. It queues the task, starts it on this errand server, and waits up to waitSeconds. If it is not finished by then you get status pending and a handle: call errand_collect with the operationId later. A task that needs the owner's approval returns status awaiting_approval with approval.url and approval.summary: show both to the person; only the owner can approve. Safe to repeat with the same operationId (the task never runs twice).",
  input: z.object({
    task: taskInput,
    waitSeconds: z.number().int().min(0).max(120).default(50).describe("How long to wait for the receipt before returning a handle (0 to 120 seconds; default 50)."),
  }),
  output: z.object({ ...operationResultShape, created: z.boolean().describe("False when this operationId was already known: nothing new was created or run.") }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: true },
  handler: ({ task, waitSeconds }, { deps, principal }) => runTask(deps, { principal, via: "mcp" }, task, Math.min(waitSeconds * 1000, deps.settings.wait.maxMs)),
  summarize: summarizeResult,
});

export const submitTaskTool = defineTool({
  name: "errand_submit",
  title: "Queue a browser task",
  description:
    "Use this to queue a browser task without waiting (for long tasks or several at once). Returns a handle. Then call errand_run_queue to run the queue and errand_collect to read each receipt. Submitting the same task again under the same operationId changes nothing.",
  input: z.object({ task: taskInput }),
  output: z.object({
    status: statusSchema,
    created: z.boolean().describe("False when this operationId was already known: nothing new was created."),
    handle: handleSchema,
    approval: approvalSchema.optional(),
    next: nextSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true, idempotentHint: true },
  handler: ({ task }, { deps, principal }) => submitTask(deps, { principal, via: "mcp" }, task),
  summarize: (output) =>
    output.approval === undefined
      ? `Operation ${output.handle.operationId}: ${output.created ? "queued" : `already known (${output.status})`}.`
      : `Operation ${output.handle.operationId}: awaiting the owner's approval at ${output.approval.url}:\n${output.approval.summary}`,
});

export const collectTool = defineTool({
  name: "errand_collect",
  title: "Get a task's receipt",
  description:
    "Use this to get the result of a task you ran or submitted: its status and, once finished, its receipt. With waitSeconds it waits (up to 120 s) for the task to finish. Extracted page text is returned once, in pageContent, marked untrusted.",
  input: z.object({
    operationId: z.string().min(1).max(64).describe("The task's operationId."),
    waitSeconds: z.number().int().min(0).max(120).default(0).describe("Wait up to this many seconds for the task to finish (default 0: answer at once)."),
  }),
  output: z.object(operationResultShape),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: ({ operationId, waitSeconds }, { deps }) => collectOperation(deps, operationId, Math.min(waitSeconds * 1000, deps.settings.wait.maxMs)),
  summarize: summarizeResult,
});
