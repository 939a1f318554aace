import type { Command } from "../commandContext.js";
import { decide } from "./approve.js";

export const denyCommand: Command = {
  name: "deny",
  summary: "deny, as the owner, a task that awaits your approval (it ends BLOCKED and never runs)",
  options: { json: { type: "boolean" } },
  maxPositionals: 1,
  run: (ctx) => decide(ctx, false),
  help: `errand deny <operationId> [--json]
  Shows the task and denies it at once: it ends BLOCKED with approval_denied and never runs. The
  denial is journaled with who denied it and when.
  Exit: 0 denied, 4 the wait had already expired, 1 not awaiting approval or not found, 2 malformed command line.`,
};
