import { COLLECT_LIMITS } from "../../../operations/collectOperation.js";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT, exitForOutcome } from "../exitCodes.js";
import { formatReceipt } from "../formatReceipt.js";
import { integerOption } from "../integerOption.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { approvalJson, describeApproval, describeHandle, presentEphemeral, printFailure } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withStoredOperations } from "../withOperations.js";

export const collectCommand: Command = {
  name: "collect",
  summary: "get an operation's receipt, or say it is still pending",
  options: { json: { type: "boolean" }, wait: { type: "boolean" }, timeout: { type: "string" }, "poll-interval": { type: "string" } },
  maxPositionals: 1,
  run: runCollect,
  help: `errand collect <operationId> [--wait] [--timeout MS] [--poll-interval MS] [--json]
  Prints the receipt once the operation is finished, else says it is pending. --wait looks again
  every --poll-interval ms (0..60000, default 1000) until it finishes or --timeout ms pass (default
  30000); it answers as soon as the receipt is stored. Extracted values (data.ephemeral) come back
  with every collect, from any process on this store, for ERRAND_RESULT_TTL (default 10m) after
  the task finished; they are kept encrypted meanwhile and never in the durable receipt.
  --json: the envelope of docs/CLI.md; status is the receipt status once terminal, else "pending" or
  "awaiting_approval" (answered at once: a person must act); data {phase, handle, ephemeral?,
  compacted?, approval?} with approval {url, expiresAt, summary} while the owner's approval is awaited.
  Exit: 0 PASS, 1 FAIL, 3 PARTIAL, 4 BLOCKED, 5 UNCERTAIN, 6 CANCELLED, 7 still pending or awaiting approval;
  1 also when not found or not trustworthy, 2 for a malformed command line.`,
};

async function runCollect(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const id = ctx.positionals[0];
  if (id === undefined) throw new UsageError("missing operationId");
  const timeoutMs = integerOption(ctx, "timeout", COLLECT_LIMITS.timeoutMs.min, COLLECT_LIMITS.timeoutMs.max);
  const pollIntervalMs = integerOption(ctx, "poll-interval", COLLECT_LIMITS.pollIntervalMs.min, COLLECT_LIMITS.pollIntervalMs.max);
  return withStoredOperations(ctx, async ({ service }) => {
    const result = await service.collect(id, {
      wait: flagOption(ctx, "wait"),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    });
    if (!result.ok) return printFailure(result, json);
    const exit = exitForOutcome(result.status, result.receipt?.status ?? result.compacted?.receiptStatus);
    if (json) {
      const { handle, ephemeral, compacted, receipt } = result;
      const approval = result.approval === undefined ? {} : { approval: approvalJson(ctx.env, id, result.approval) };
      printEnvelope({
        ok: exit === EXIT.pass,
        status: receipt?.status ?? result.status,
        operationId: id,
        receipt,
        data: {
          phase: result.status,
          handle,
          ...(ephemeral === undefined ? {} : { ephemeral: presentEphemeral(ephemeral) }),
          ...(compacted === undefined ? {} : { compacted }),
          ...approval,
        },
      });
    } else if (result.approval !== undefined)
      printOut(`${describeApproval(ctx.env, result.handle.operationId, result.approval)}\n  ${describeHandle(result.handle)}`);
    else if (result.receipt !== undefined) printOut(formatReceipt(result.receipt, result.ephemeral));
    else if (result.compacted !== undefined)
      printOut(
        `${result.status}: finished as ${result.compacted.receiptStatus ?? result.compacted.phase}; its receipt was compacted at ${result.compacted.compactedAt}\n  ${describeHandle(result.handle)}`,
      );
    else printOut(`pending: ${describeHandle(result.handle)}\n  it runs when "errand runner" picks it up; collect again later`);

    return exit;
  });
}
