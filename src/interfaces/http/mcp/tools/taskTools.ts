import * as z from "zod/v4";
import { collectWithScreenshots, runTask } from "../../operationActions.js";
import { operationResultShape } from "../outputSchemas.js";
import { taskArgument } from "../taskArgument.js";
import { summarizeOperation } from "../resultSummary.js";
import { waitSecondsArgument } from "../toolWaits.js";
import { defineTool } from "../toolDefinition.js";

/** Runs a task now: submit, run it in this server, and wait (bounded) for the receipt. */
export const runTaskTool = defineTool({
  name: "errand_run",
  title: "Run a browser task now",
  description:
    "Use this to run a browser task and get its verified receipt. Waits up to waitSeconds (less under a request limit), then answers pending (see next): call errand_collect. awaiting_approval: show approval.url and approval.summary to the person. An operationId never runs twice.",
  input: z.object({
    task: taskArgument,
    waitSeconds: waitSecondsArgument("errand_run"),
  }),
  requiredArguments: ["task"],
  output: z.object({ ...operationResultShape, created: z.boolean().describe("False: this operationId was known; nothing new ran.") }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true, idempotentHint: true },
  handler: ({ task, waitSeconds }, { deps, principal }) => runTask(deps, { principal, via: "mcp" }, task, waitSeconds * 1000),
  summarize: summarizeOperation,
});

export const collectTool = defineTool({
  name: "errand_collect",
  title: "Get a task's receipt",
  description:
    "Use this to get a task's status and, once finished, its receipt and screenshots (images); waitSeconds waits and answers the moment it ends. Page text is marked untrusted.",
  input: z.object({
    operationId: z.string().min(1).max(64).describe("The task's operationId."),
    waitSeconds: waitSecondsArgument("errand_collect"),
  }),
  output: z.object({
    ...operationResultShape,
    screenshots: z
      .array(z.record(z.string(), z.unknown()))
      .optional()
      .describe("index, mimeType, bytes, sha256 of each image sent as image content (or omitted: why not)."),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false, idempotentHint: true },
  handler: ({ operationId, waitSeconds }, { deps, principal }) => collectWithScreenshots(deps, { principal, via: "mcp" }, operationId, waitSeconds * 1000),
  images: (output) =>
    (output.screenshots ?? []).flatMap((shot) =>
      typeof shot["data"] === "string" ? [{ type: "image" as const, data: shot["data"], mimeType: String(shot["mimeType"]) }] : [],
    ),
  structured: (output) => {
    if (output.screenshots === undefined) return output;
    // The bytes go out once, as image content; the structured content keeps what identifies them.
    return { ...output, screenshots: output.screenshots.map(({ data: _data, ...meta }) => meta) };
  },
  summarize: (output) =>
    `${summarizeOperation(output)}${output.screenshots === undefined ? "" : ` ${output.screenshots.filter((s) => s["data"] !== undefined).length} screenshot(s) attached as images.`}`,
});
