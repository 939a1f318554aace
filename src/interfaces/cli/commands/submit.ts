import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { approvalJson, describeApproval, describeHandle, printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { parseJsonText, readInputText } from "../readInput.js";
import { withOperations } from "../withOperations.js";

export const submitCommand: Command = {
  name: "submit",
  summary: "queue a task as a durable operation (idempotent by operationId)",
  options: { json: { type: "boolean" } },
  maxPositionals: 1,
  run: runSubmit,
  help: `errand submit <file|-> [--json]
  Validates the task and queues it as an operation, or answers for the operation that already holds
  its operationId. Submitting the same task again never runs it twice; the same operationId with a
  different task is refused with identity_mismatch. Nothing runs until "errand runner".
  A task ERRAND_OWNER_APPROVAL names (default: every write, reversible_write or consequential, and
  any fill_secret) waits for the owner: the summary is printed, and "errand approve ID" (or the owner console) lets it run.
  --json: the envelope of docs/CLI.md; data {created, handle} and, while the task waits for the
  owner, approval {url, expiresAt, summary} (url from ERRAND_PUBLIC_URL, else null).
  Exit: 0 accepted (new or existing), 7 accepted and awaiting the owner's approval, 2 invalid task
  or identity_mismatch, 4 approval missing or known to fail (an undeclared secret, a secret bound to
  no origin the task reaches, a goto off the task's hosts: nothing is queued or asked of the owner),
  1 errand's own state (journal_quota_exceeded, journal_tampered).`,
};

async function runSubmit(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const parsed = parseJsonText(readInputText(ctx.positionals[0]));
  if (!parsed.ok) return printFailure({ code: "invalid_json", message: `The task is not valid JSON: ${parsed.message}` }, json);
  return withOperations(ctx, async ({ service }) => {
    const result = await service.submit(parsed.value);
    if (!result.ok) return printFailure(result, json);
    const approval = result.approval === undefined ? {} : { approval: approvalJson(ctx.env, result.handle.operationId, result.approval) };
    if (json)
      printEnvelope({
        ok: result.status !== "awaiting_approval",
        status: result.status,
        operationId: result.handle.operationId,
        data: { created: result.created, handle: result.handle, ...approval },
      });
    else if (result.approval !== undefined)
      printOut(
        `${result.created ? "accepted" : "already submitted"}, ${describeApproval(ctx.env, result.handle.operationId, result.approval)}\n  ${describeHandle(result.handle)}`,
      );
    else if (result.created) printOut(`accepted: ${describeHandle(result.handle)}\n  run "errand runner", then "errand collect ${result.handle.operationId}"`);
    else printOut(`already submitted (${result.status}); nothing new was queued: ${describeHandle(result.handle)}`);
    return result.status === "awaiting_approval" ? EXIT.pending : EXIT.pass;
  });
}
