import { randomUUID } from "node:crypto";
import type { CancelOutcome } from "../../../store/Store.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { describeHandle, printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withOperations } from "../withOperations.js";

export const cancelCommand: Command = {
  name: "cancel",
  summary: "cancel an operation (queued: at once; running: only before its first change)",
  options: { json: { type: "boolean" }, "control-id": { type: "string" } },
  maxPositionals: 1,
  run: runCancel,
  help: `errand cancel <operationId> [--control-id UUID] [--json]
  Cancels a queued operation at once. A running one is stopped if it has not crossed its mutation
  boundary (and then can no longer cross it); past the boundary the answer is "uncertain" and the
  write is left to finish. --control-id makes the request repeatable: the same id returns the first
  outcome and never acts twice (a fresh id is generated and printed when absent).
  --json: the envelope of docs/CLI.md; status is the outcome, data {phase, repeated, controlActionId, handle}.
  Exit: 0 cancelled, stop requested or already finished; 5 uncertain; 1 not found; 2 bad input.`,
};

const SAYS: Record<CancelOutcome, string> = {
  cancelled: "cancelled; it will not run",
  cancel_requested: "stop requested; the runner stops it before its first change",
  uncertain: "it already crossed its mutation boundary, so it was not interrupted; collect its receipt and check the site",
  already_terminal: "it had already finished; nothing was changed",
};

async function runCancel(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const id = ctx.positionals[0];
  if (id === undefined) throw new UsageError("missing operationId");
  const controlActionId = stringOption(ctx, "control-id") ?? randomUUID();
  return withOperations(ctx, async ({ service }) => {
    const result = await service.control(id, { action: "cancel", controlActionId });
    if (!result.ok) return printFailure(result, json);
    if (json)
      printEnvelope({
        ok: result.outcome !== "uncertain",
        status: result.outcome,
        operationId: id,
        data: { phase: result.status, repeated: result.repeated, controlActionId, handle: result.handle },
      });
    else
      printOut(
        `${result.outcome}: ${SAYS[result.outcome]}${result.repeated ? " (repeated request: nothing done again)" : ""}\n  ${describeHandle(result.handle)}\n  control id ${controlActionId}`,
      );
    return result.outcome === "uncertain" ? EXIT.uncertain : EXIT.pass;
  });
}
