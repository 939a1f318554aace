import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import type { ExecuteTask } from "../../../executor/executeTaskTypes.js";
import { storeLocationFor } from "../../../app/storeLocation.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import type { EphemeralEvidence, Receipt } from "../../../receipt/receiptTypes.js";
import { parseTaskText } from "../../../task/parseTaskText.js";
import { requestDigest } from "../../../task/requestDigest.js";
import type { Task } from "../../../task/taskTypes.js";
import { POLICY_CODES } from "../../../task/validateTask.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { createExecutor } from "../executorFactory.js";
import { formatReceipt } from "../formatReceipt.js";
import { exitCodeFor } from "../exitCodes.js";
import { openOperations } from "../openOperations.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { approvalJson, describeApproval, presentEphemeral, printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { createProgressReporter } from "../progressReporter.js";
import { readInputText } from "../readInput.js";
import { UsageError } from "../usageError.js";
import { withOperations } from "../withOperations.js";
import { printProblems, problemsError } from "./validate.js";

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
  Submits the task as a durable operation (ERRAND_HOME/errand.db), runs that operation and nothing
  else, and prints its receipt (readable, or JSON with --json). A task without an operationId gets a
  fresh one, printed on stderr (the file is not changed). Running the same file again returns
  the same receipt without running it twice (same operationId and digest); a changed task under the
  same operationId is refused (identity_mismatch, exit 2); a task BLOCKED by errand's own environment
  before any browser opened (no Chromium, provider unavailable, ...) runs again. Progress goes to stderr. --json: the
  envelope of docs/CLI.md with the receipt; extracted values in data.ephemeral (held encrypted for collect for ERRAND_RESULT_TTL, not in the receipt). --receipt-out
  writes the durable receipt (extracted values only with evidenceRetention "full"). --allow-private
  admits one exact private destination (operator only; also ERRAND_ALLOW_PRIVATE, comma-separated).
  A task ERRAND_OWNER_APPROVAL names (default: every write, reversible_write or consequential, and
  any fill_secret) is not run: the
  summary is printed (--json: data.approval {url, expiresAt, summary}) and it exits 7; after
  "errand approve ID", running the same file again runs it, once.
  Exit: 0 PASS, 1 FAIL, 2 invalid input, 3 PARTIAL, 4 BLOCKED, 5 UNCERTAIN, 6 CANCELLED, 7 awaiting approval.`,
};

async function runRun(ctx: CommandContext): Promise<number> {
  const provider = stringOption(ctx, "provider") ?? "local";
  if (provider !== "local") throw new UsageError(`provider "${provider}" is not available to errand run in this build; use --provider local`);
  const text = withOperationId(readInputText(ctx.positionals[0]));
  const parsed = parseTaskText(text);
  if (!parsed.ok && !parsed.errors.every((e) => POLICY_CODES.has(e.code))) {
    if (flagOption(ctx, "json")) printEnvelope({ ok: false, status: "invalid", error: problemsError(parsed.errors) });
    else printProblems(parsed.errors);
    return EXIT.usage;
  }
  const config = resolveRuntimeConfig(ctx.env);
  const wired = await createExecutor({ env: ctx.env, allowPrivate: listOption(ctx, "allow-private"), browserTimeoutMs: config.browserTimeoutMs });
  try {
    if (!parsed.ok) {
      // Well formed but not approved: refused (BLOCKED) without becoming an operation, so the
      // caller can ask the person and submit again under the same operationId.
      return finish(ctx, await refuseUnapproved(text, masterKeyFor(config.errandHome, "write", storeLocationFor(config)), wired.execute));
    }
    const progress = createProgressReporter();
    // The executor built above (the refusal needed it first) is the one the queue runs on; it is shut down below.
    const kept = { ...wired, shutdown: () => Promise.resolve() };
    const withProgress =
      (execute: ExecuteTask): ExecuteTask =>
      (task, attempt) =>
        execute(task, { ...attempt, onProgress: progress });
    return await withOperations(
      ctx,
      (opened) => runThroughQueue(ctx, text, opened.service),
      (c) => openOperations(c, { executor: () => Promise.resolve(kept), aroundAttempt: withProgress }),
    );
  } finally {
    await wired.shutdown();
  }
}

type Service = Awaited<ReturnType<typeof openOperations>>["service"];

/** More rounds than any operation needs (at most ERRAND_MAX_ATTEMPTS attempts, plus waits). */
const MAX_ROUNDS = 20;

/** submit → run this operation (and only it) → collect; the same receipt every later time. */
async function runThroughQueue(ctx: CommandContext, text: string, service: Service): Promise<number> {
  const json = flagOption(ctx, "json");
  const submitted = await service.submit(JSON.parse(text) as unknown);
  if (!submitted.ok) return printFailure(submitted, json);
  const id = submitted.handle.operationId;
  if (submitted.approval !== undefined) {
    if (json)
      printEnvelope({
        ok: false,
        status: submitted.status,
        operationId: id,
        data: { created: submitted.created, handle: submitted.handle, approval: approvalJson(ctx.env, id, submitted.approval) },
      });
    else printErr(`operation ${id} is ${describeApproval(ctx.env, id, submitted.approval)}`);
    return EXIT.pending;
  }
  if (!submitted.created && submitted.status !== "pending") printErr(`operation ${id} already exists (${submitted.status}); not running it again`);
  else if (!submitted.created) printErr(`operation ${id} already exists (${submitted.status}); running it now if nothing else is`);
  // Run this operation until it is terminal: a read_only failure is retried once after the retry
  // delay, exactly as a runner would, so the receipt and exit code match the queue's.
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const seen = await service.inspect(id);
    if (!seen.ok) return printFailure(seen, json);
    if (seen.status !== "pending" || !("operation" in seen)) break;
    const waitMs = seen.operation.runAfter === null ? 0 : Date.parse(seen.operation.runAfter) - Date.now();
    if (waitMs > 0) {
      printErr(`attempt failed; retrying in ${Math.ceil(waitMs / 1000)} s (read_only tasks are retried once)`);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    await service.runQueue({ onlyOperationId: id });
  }
  const collected = await service.collect(id, { wait: true, timeoutMs: 5_000, pollIntervalMs: 200 });
  if (!collected.ok) return printFailure(collected, json);
  if (collected.receipt === undefined) {
    printErr(
      `operation ${submitted.handle.operationId} is still ${collected.status}; collect it later with: errand collect ${submitted.handle.operationId} --wait`,
    );
    return EXIT.pending;
  }
  return finish(ctx, { receipt: collected.receipt, ephemeral: collected.ephemeral ?? { ephemeral: true, outputs: {} } });
}

function finish(ctx: CommandContext, outcome: { receipt: Receipt; ephemeral: EphemeralEvidence }): number {
  const { receipt, ephemeral } = outcome;
  const receiptOut = stringOption(ctx, "receipt-out");
  if (receiptOut !== undefined) writeFileSync(receiptOut, `${JSON.stringify(receipt, null, 2)}\n`);
  const exit = exitCodeFor(receipt.status);
  if (flagOption(ctx, "json"))
    printEnvelope({
      ok: exit === EXIT.pass,
      status: receipt.status,
      operationId: receipt.operationId,
      receipt,
      data: { ephemeral: presentEphemeral(ephemeral) },
    });
  else printOut(formatReceipt(receipt, ephemeral));
  return exit;
}

/**
 * A task without an operationId gets a fresh one here (printed on stderr); the file itself is not
 * changed, so running it again starts another operation. Anything that is not a JSON object is left
 * for the validator to report.
 */
function withOperationId(text: string): string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return text;
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw) || "operationId" in raw) return text;
  const operationId = randomUUID();
  printErr(
    `operationId assigned: ${operationId} (the task has none; the file is unchanged, so running it again starts a new operation: add this id to the file to make reruns return the same receipt)`,
  );
  return JSON.stringify({ ...(raw as Record<string, unknown>), operationId });
}

/** Runs a copy of the task that keeps its (missing) approvals: the admission step (executor/admitTask) refuses it, a BLOCKED receipt, no provider chosen, no browser. */
async function refuseUnapproved(text: string, key: Buffer, execute: ExecuteTask): Promise<{ receipt: Receipt; ephemeral: EphemeralEvidence }> {
  const raw = JSON.parse(text) as Record<string, unknown>;
  const approvedCopy = parseTaskText(JSON.stringify({ ...raw, approved: true, secretApproval: true }));
  if (!approvedCopy.ok) throw new UsageError("the task could not be read");
  const task: Task = { ...approvedCopy.value, approved: raw["approved"] === true, secretApproval: raw["secretApproval"] === true };
  return execute(task, {
    requestDigest: requestDigest(key, task),
    attempt: 1,
    signal: new AbortController().signal,
    beforeMutationBoundary: () => Promise.resolve(),
  });
}
