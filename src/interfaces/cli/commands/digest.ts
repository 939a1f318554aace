import { readHexKeyFile } from "../../../keys/loadKey.js";
import { masterKeyFor } from "../../../app/masterKey.js";
import { parseTaskText } from "../../../task/parseTaskText.js";
import { requestDigest } from "../../../task/requestDigest.js";
import { EXIT } from "../exitCodes.js";
import { printOut } from "../output.js";
import { readInputText } from "../readInput.js";
import { flagOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printProblems, problemsError } from "./validate.js";

export const digestCommand: Command = {
  name: "digest",
  summary: "print a task's operationId and keyed request digest",
  options: { json: { type: "boolean" }, "key-file": { type: "string" } },
  maxPositionals: 1,
  run: runDigest,
  help: `errand digest <file|-> [--key-file F] [--json]
  Validates a task and prints {"operationId":...,"requestDigest":"hmac-sha256:..."} (--json: the
  envelope of docs/CLI.md with operationId and data.requestDigest).
  The key is ERRAND_HOME/keys/master.key (created on first use) unless --key-file names a hex key file.
  Exit 2 when the task is invalid.`,
};

export function runDigest(ctx: CommandContext): number {
  const result = parseTaskText(readInputText(ctx.positionals[0]));
  if (!result.ok) {
    if (flagOption(ctx, "json")) printEnvelope({ ok: false, status: "invalid", error: problemsError(result.errors) });
    else printProblems(result.errors);
    return EXIT.usage;
  }
  const keyFile = stringOption(ctx, "key-file");
  const key = keyFile === undefined ? masterKeyFor(ctx.errandHome, "write") : readHexKeyFile(keyFile);
  const digest = requestDigest(key, result.value);
  if (flagOption(ctx, "json")) printEnvelope({ ok: true, status: "ok", operationId: result.value.operationId, data: { requestDigest: digest } });
  else printOut(JSON.stringify({ operationId: result.value.operationId, requestDigest: digest }));
  return EXIT.pass;
}
