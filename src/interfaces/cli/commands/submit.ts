import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { describeHandle, printFailure } from "../operationOutput.js";
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
  --json: the envelope of docs/CLI.md; data {created, handle}.
  Exit: 0 accepted (new or existing), 2 invalid task or identity_mismatch, 4 approval missing,
  1 errand's own state (journal_quota_exceeded, journal_tampered).`,
};

async function runSubmit(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const parsed = parseJsonText(readInputText(ctx.positionals[0]));
  if (!parsed.ok) return printFailure({ code: "invalid_json", message: `The task is not valid JSON: ${parsed.message}` }, json);
  return withOperations(ctx, async ({ service }) => {
    const result = await service.submit(parsed.value);
    if (!result.ok) return printFailure(result, json);
    if (json) printEnvelope({ ok: true, status: result.status, operationId: result.handle.operationId, data: { created: result.created, handle: result.handle } });
    else if (result.created) printOut(`accepted: ${describeHandle(result.handle)}\n  run "errand runner", then "errand collect ${result.handle.operationId}"`);
    else printOut(`already submitted (${result.status}); nothing new was queued: ${describeHandle(result.handle)}`);
    return EXIT.pass;
  });
}
