import { stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printFailure } from "../operationOutput.js";
import { printErr, terminalInput } from "../output.js";
import { readPiped } from "../readPipedInput.js";
import { UsageError } from "../usageError.js";

export const ownerCommand: Command = {
  name: "owner",
  summary: "set the owner password (approves ChatGPT and tasks in the owner console); unlock a lockout",
  options: { address: { type: "string" } },
  maxPositionals: 1,
  run: runOwner,
  help: `errand owner set-password | errand owner unlock [--address ADDR]
  set-password reads the new owner password (at least 10 characters) from the terminal, twice and
  without echo, or from standard input when it is not a terminal (one line). Only a scrypt hash is
  stored. The password is asked on errand's consent page whenever an MCP client (ChatGPT) asks to
  connect, and to log in to the owner console (/owner). ERRAND_OWNER_PASSWORD, when set, takes
  precedence over the stored one.
  unlock lifts the owner-password lockout of every client address (or of one: --address, as the
  server logs it; an IPv6 client is counted by its /64, e.g. 2001:db8:1:2::/64). Lockout schedule:
  5 attempts from one address whose last is wrong lock that address for 15 minutes, each further
  lock doubles (30 min, 1 h, ... at most 1 day); the right password, or a day without failures,
  forgets the address's history. Other addresses are never locked by it.`,
};

async function runOwner(ctx: CommandContext): Promise<number> {
  if (ctx.positionals[0] === "unlock") return unlock(ctx);
  if (ctx.positionals[0] !== "set-password") throw new UsageError('say "set-password" or "unlock"');
  if (stringOption(ctx, "address") !== undefined) throw new UsageError("--address belongs to errand owner unlock");
  const { hashOwnerPassword, ownerPasswordProblem } = await import("../../http/oauth/ownerPassword.js");
  let password: string;
  const terminal = terminalInput();
  if (terminal !== undefined) {
    password = await terminal.ask("New owner password: ", false);
    if ((await terminal.ask("Again: ", false)) !== password)
      return printFailure({ code: "usage", message: "The two entries differ; nothing was changed." }, false);
  } else {
    password = await readPiped();
  }
  const problem = ownerPasswordProblem(password);
  if (problem !== null) return printFailure({ code: "usage", message: `${problem} Nothing was changed.` }, false);
  const encoded = await hashOwnerPassword(password);
  const { withAccess } = await import("../openAccess.js");
  return withAccess(ctx, async ({ access }) => {
    await access.writeOwnerSecret(encoded);
    printErr("owner password set (stored as a scrypt hash)");
    return EXIT.pass;
  });
}

async function unlock(ctx: CommandContext): Promise<number> {
  const address = stringOption(ctx, "address");
  const { withAccess } = await import("../openAccess.js");
  return withAccess(ctx, async ({ access }) => {
    const removed = await access.clearOwnerLockouts(address);
    printErr(
      address === undefined
        ? `owner-password lockouts cleared (${removed} address${removed === 1 ? "" : "es"} forgotten)`
        : `owner-password lockout of ${address} cleared (${removed === 0 ? "it had none" : "forgotten"})`,
    );
    return EXIT.pass;
  });
}
