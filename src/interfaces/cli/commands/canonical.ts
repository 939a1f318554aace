import { canonicalJson } from "../../../task/canonicalJson.js";
import { EXIT } from "../exitCodes.js";
import { printErr, printOut } from "../output.js";
import { parseJsonText, readInputText } from "../readInput.js";
import type { Command, CommandContext } from "../commandContext.js";
import { errorMessage } from "../../../errors/errorMessage.js";

export const canonicalCommand: Command = {
  name: "canonical",
  summary: "print the RFC 8785 canonical form of a JSON document",
  options: {},
  maxPositionals: 1,
  run: runCanonical,
  help: `errand canonical <file|->
  Prints the RFC 8785 (JCS) canonical form of any JSON document, then one newline.
  Exit 2 when the input is not JSON.`,
};

export function runCanonical(ctx: CommandContext): number {
  const parsed = parseJsonText(readInputText(ctx.positionals[0]));
  if (!parsed.ok) {
    printErr(`error: input is not valid JSON: ${parsed.message} [invalid_json]`);
    return EXIT.usage;
  }
  // JSON.parse accepts a few documents RFC 8785 has no form for (1e400 becomes Infinity, an
  // unpaired surrogate escape); those are bad input, not an errand failure.
  let canonical: string;
  try {
    canonical = canonicalJson(parsed.value);
  } catch (error) {
    printErr(`error: input has no RFC 8785 canonical form: ${errorMessage(error)} [invalid_json]`);
    return EXIT.usage;
  }
  printOut(canonical);
  return EXIT.pass;
}
