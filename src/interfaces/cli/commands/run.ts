import { writeFileSync } from "node:fs";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { Redactor } from "../../../executor/redactor.js";
import { loadOrCreateMasterKey } from "../../../keys/loadKey.js";
import type { EphemeralEvidence, Receipt } from "../../../receipt/receiptTypes.js";
import { parseTaskText } from "../../../task/parseTaskText.js";
import { requestDigest } from "../../../task/requestDigest.js";
import type { Task } from "../../../task/taskTypes.js";
import { POLICY_CODES } from "../../../task/validateTask.js";
import type { BuiltExecutor } from "../buildExecutor.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { exitCodeFor, formatReceipt } from "../formatReceipt.js";
import { printOut, setOutputScrubber } from "../output.js";
import { createProgressReporter } from "../progressReporter.js";
import { readInputText } from "../readInput.js";
import { UsageError } from "../usageError.js";
import { printProblems } from "./validate.js";

export const runCommand: Command = {
  name: "run",
  summary: "run a task now on a browser and print its receipt",
  options: {
    provider: { type: "string" },
    json: { type: "boolean" },
    "receipt-out": { type: "string" },
    "allow-private": { type: "string", multiple: true },
  },
  maxPositionals: 1,
  run: runRun,
  help: `errand run <file|-> [--provider local] [--json] [--receipt-out F] [--allow-private HOST:PORT]...
  Validates the task, runs it on a browser and prints the receipt (readable, or JSON with --json).
  Progress goes to stderr. --receipt-out writes the durable receipt (extracted values only with
  evidenceRetention "full"). --allow-private admits one exact private destination (operator only;
  also ERRAND_ALLOW_PRIVATE, comma-separated).
  Exit: 0 PASS, 1 FAIL, 2 invalid input, 3 PARTIAL, 4 BLOCKED, 5 UNCERTAIN, 6 CANCELLED.`,
};

async function runRun(ctx: CommandContext): Promise<number> {
  const provider = stringOption(ctx, "provider") ?? "local";
  if (provider !== "local") throw new UsageError(`provider "${provider}" is not available in this build; use --provider local`);
  const text = readInputText(ctx.positionals[0]);
  const parsed = parseTaskText(text);
  if (!parsed.ok && !parsed.errors.every((e) => POLICY_CODES.has(e.code))) {
    printProblems(parsed.errors);
    return EXIT.usage;
  }
  const config = resolveRuntimeConfig(ctx.env);
  const key = loadOrCreateMasterKey(config.errandHome);
  // Loaded on demand: the browser library costs every other command ~0.4 s of start-up.
  const { buildExecutor } = await import("../buildExecutor.js");
  const runner = buildExecutor(ctx.env, listOption(ctx, "allow-private"), config.browserTimeoutMs);
  try {
    const { receipt, ephemeral } = parsed.ok
      ? await runNow(parsed.value, requestDigest(key, parsed.value), runner.execute, ctx)
      : await runUnapproved(text, key, runner.execute);
    const receiptOut = stringOption(ctx, "receipt-out");
    if (receiptOut !== undefined) writeFileSync(receiptOut, `${JSON.stringify(receipt, null, 2)}\n`);
    printOut(flagOption(ctx, "json") ? JSON.stringify({ status: receipt.status, receipt, ephemeral }) : formatReceipt(receipt, ephemeral));
    return exitCodeFor(receipt.status);
  } finally {
    await runner.shutdown();
  }
}

type Execute = BuiltExecutor["execute"];

async function runNow(task: Task, digest: string, execute: Execute, ctx: CommandContext): Promise<{ receipt: Receipt; ephemeral: EphemeralEvidence }> {
  // Every secret this task may type is scrubbed from all terminal output, whatever path it takes.
  const redactor = new Redactor();
  for (const step of task.steps) {
    const value = step.action === "fill_secret" ? ctx.env[step.envVar] : undefined;
    if (value !== undefined && value !== "") redactor.add(value);
  }
  setOutputScrubber((text) => redactor.scrub(text));
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  try {
    return await execute(task, {
      requestDigest: digest,
      attempt: 1,
      signal: controller.signal,
      beforeMutationBoundary: () => Promise.resolve(),
      onProgress: createProgressReporter(),
    });
  } finally {
    process.off("SIGINT", onSignal);
  }
}

/**
 * A well-formed task that lacks an approval is not bad input: it is refused (BLOCKED) with the
 * approval that is missing, so the caller knows what to ask the person for.
 */
async function runUnapproved(text: string, key: Buffer, execute: Execute): Promise<{ receipt: Receipt; ephemeral: EphemeralEvidence }> {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const approvedCopy = parseTaskText(JSON.stringify({ ...raw, approved: true, secretApproval: true }));
  if (!approvedCopy.ok) throw new UsageError("the task could not be read");
  const task: Task = { ...approvedCopy.value, approved: raw["approved"] === true, secretApproval: raw["secretApproval"] === true };
  return execute(task, { requestDigest: requestDigest(key, task), attempt: 1, signal: new AbortController().signal, beforeMutationBoundary: () => Promise.resolve() });
}
