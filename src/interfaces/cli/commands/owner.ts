import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { printFailure } from "../operationOutput.js";
import { printErr } from "../output.js";
import { readHidden, readPiped } from "../readHiddenInput.js";
import { UsageError } from "../usageError.js";

export const ownerCommand: Command = {
  name: "owner",
  summary: "set the owner password that approves OAuth clients (ChatGPT)",
  options: {},
  maxPositionals: 1,
  run: runOwner,
  help: `errand owner set-password
  Reads the new owner password (at least 10 characters) from the terminal, twice and without echo,
  or from standard input when it is not a terminal (one line). Only a scrypt hash is stored. The
  password is asked on errand's consent page whenever an MCP client (ChatGPT) asks to connect.
  ERRAND_OWNER_PASSWORD, when set, takes precedence over the stored one.`,
};

async function runOwner(ctx: CommandContext): Promise<number> {
  if (ctx.positionals[0] !== "set-password") throw new UsageError('say "set-password"');
  const { hashOwnerPassword, ownerPasswordProblem } = await import("../../http/oauth/ownerPassword.js");
  let password: string;
  if (process.stdin.isTTY) {
    password = await readHidden("New owner password: ");
    if ((await readHidden("Again: ")) !== password) return printFailure({ code: "usage", message: "The two entries differ; nothing was changed." }, false);
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
