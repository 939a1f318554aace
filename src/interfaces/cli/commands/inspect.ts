import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { describeHandle, printFailure, withoutOk } from "../operationOutput.js";
import { printOut } from "../output.js";
import { UsageError } from "../usageError.js";
import { withStoredOperations } from "../withOperations.js";

export const inspectCommand: Command = {
  name: "inspect",
  summary: "show an operation's durable state (no browser)",
  options: { json: { type: "boolean" } },
  maxPositionals: 1,
  run: runInspect,
  help: `errand inspect <operationId> [--json]
  Shows where the operation stands, authenticated against the journal: phase, attempts, lease,
  cancel request. A compacted operation is reported as compacted, with its final status.
  --json: the envelope of docs/CLI.md; data {handle, operation, attempts} or {handle, compacted}.
  Exit: 0 when found (whatever its status), 1 not found or not trustworthy (journal_tampered).`,
};

async function runInspect(ctx: CommandContext): Promise<number> {
  const json = flagOption(ctx, "json");
  const id = ctx.positionals[0];
  if (id === undefined) throw new UsageError("missing operationId");
  return withStoredOperations(ctx, async ({ service }) => {
    const result = await service.inspect(id);
    if (!result.ok) return printFailure(result, json);
    if (json) {
      printEnvelope({ ok: true, status: result.status, operationId: id, data: withoutOk(result) });
      return EXIT.pass;
    }
    const rest = result;
    const lines = [`${result.status}: ${describeHandle(result.handle)}`];
    if ("compacted" in rest) {
      const c = rest.compacted;
      lines.push(`  compacted   ${c.compactedAt}; it finished ${c.finishedAt} as ${c.receiptStatus ?? c.phase} after ${c.attempts} attempt(s)`);
    } else {
      const op = rest.operation;
      lines.push(
        `  risk        ${op.risk}`,
        `  attempts    ${op.attempts} of ${op.maxAttempts}`,
        `  created     ${op.createdAt}`,
        `  updated     ${op.updatedAt}`,
      );
      if (op.finishedAt !== null) lines.push(`  finished    ${op.finishedAt} (${op.receiptStatus ?? ""})`);
      if (op.runAfter !== null) lines.push(`  eligible    ${op.runAfter}`);
      if (op.leaseOwner !== null) lines.push(`  lease       ${op.leaseOwner} until ${op.leaseExpiresAt ?? ""}`);
      if (op.ranUnderGrant !== null)
        lines.push(`  unattended  ran under the standing grant ${op.ranUnderGrant} (errand site show; errand site revoke ends it)`);
      if (op.cancelRequested) lines.push("  cancel      requested");
      for (const attempt of rest.attempts) {
        lines.push(
          `  attempt ${attempt.attempt}   ${attempt.outcome ?? "running"}${attempt.errorCode === null ? "" : ` (${attempt.errorCode})`} on ${attempt.provider ?? "-"} by ${attempt.runnerId}`,
        );
      }
    }
    printOut(lines.join("\n"));
    return EXIT.pass;
  });
}
