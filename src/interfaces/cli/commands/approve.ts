import { hostname, userInfo } from "node:os";
import { flagOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { describeHandle, printFailure } from "../operationOutput.js";
import { printErr, printOut, terminalInput } from "../output.js";
import type { Terminal } from "../output.js";
import { UsageError } from "../usageError.js";
import { withOperations } from "../withOperations.js";

export const approveCommand: Command = {
  name: "approve",
  summary: "approve, as the owner, a task that awaits your approval (shows what it will do first)",
  options: { yes: { type: "boolean" }, json: { type: "boolean" } },
  maxPositionals: 1,
  run: (ctx) => decide(ctx, true),
  help: `errand approve <operationId> [--yes] [--json]
  Shows what the task will do (risk, every host, each step, secrets, request digest) and asks
  "Approve? [y/N]" on a terminal; --yes approves without asking (for scripts; required when stdin is
  not a terminal). The approval is bound to the digest shown, journaled with who approved and when,
  and queues the task: it runs with the next "errand runner" (or "errand run" of the same file, or
  errand serve's queue). Only this host's owner can approve: no OAuth or API token can.
  Exit: 0 approved, 4 the wait expired (approval_expired), 1 not awaiting approval or not found,
  2 malformed command line or declined at the prompt.`,
};

/** Who decided, as the journal records it. */
export function cliDecider(): string {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no user database entry (containers): the host alone is still recorded
  }
  return `owner (cli: ${user}@${hostname()})`;
}

async function confirm(terminal: Terminal, question: string): Promise<boolean> {
  return /^y(es)?$/i.test((await terminal.ask(question, true)).trim());
}

/** errand approve / errand deny: show the request, confirm an approval, record the decision bound to the digest shown. */
export async function decide(ctx: CommandContext, approve: boolean): Promise<number> {
  const json = flagOption(ctx, "json");
  const id = ctx.positionals[0];
  if (id === undefined) throw new UsageError("missing operationId");
  return withOperations(ctx, async ({ service }) => {
    const request = await service.approvalRequest(id);
    if (!request.ok) return printFailure(request, json);
    if (!json) printErr(`Operation ${request.handle.operationId} waits for your approval (until ${request.approval.expiresAt}):\n${request.approval.summary}`);
    if (approve && !flagOption(ctx, "yes")) {
      const terminal = terminalInput();
      if (terminal === undefined) throw new UsageError("standard input is not a terminal, so errand cannot ask; pass --yes to approve what was printed above");
      if (!(await confirm(terminal, "Approve this task? [y/N] "))) {
        printErr("not approved; nothing was changed.");
        return EXIT.usage;
      }
    }
    const decided = await service.decideApproval(id, { approve, requestDigest: request.approval.requestDigest, decidedBy: cliDecider(), via: "cli" });
    if (!decided.ok) return printFailure(decided, json);
    if (json)
      printEnvelope({ ok: true, status: decided.outcome, operationId: decided.handle.operationId, data: { phase: decided.status, handle: decided.handle } });
    else if (decided.outcome === "approved")
      printOut(
        `approved and queued: ${describeHandle(decided.handle)}\n  it runs with the next "errand runner" (or errand serve's queue); then "errand collect ${decided.handle.operationId}"`,
      );
    else printOut(`denied: it ended BLOCKED (approval_denied) and will never run: ${describeHandle(decided.handle)}`);
    return EXIT.pass;
  });
}
