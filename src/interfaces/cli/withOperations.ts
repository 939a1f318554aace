import { ErrandError } from "../../errors/errandError.js";
import { flagOption } from "./commandContext.js";
import type { CommandContext } from "./commandContext.js";
import { openOperations } from "./openOperations.js";
import type { OpenedOperations } from "./openOperations.js";
import { printFailure } from "./operationOutput.js";

/**
 * Opens the operations service for one command, runs it, and always closes the store. Errors of
 * errand's own setup (configuration, a newer database, a locked database) are printed with their
 * code instead of as internal errors.
 */
export async function withOperations(
  ctx: CommandContext,
  body: (opened: OpenedOperations) => Promise<number>,
  open: (ctx: CommandContext) => Promise<OpenedOperations> = openOperations,
): Promise<number> {
  const json = flagOption(ctx, "json");
  let opened: OpenedOperations;
  try {
    opened = await open(ctx);
  } catch (error) {
    return printSetupError(error, json);
  }
  try {
    return await body(opened);
  } catch (error) {
    return printSetupError(error, json);
  } finally {
    await opened.close();
  }
}

/**
 * withOperations for commands that only read what is stored: they never create a key
 * (masterKeyFor). "report" commands (status) read an unused home as empty (homeForAccess).
 */
export function withStoredOperations(
  ctx: CommandContext,
  body: (opened: OpenedOperations) => Promise<number>,
  access: "read" | "report" = "read",
): Promise<number> {
  return withOperations(ctx, body, (c) => openOperations(c, { access }));
}

/** errand's own errors (configuration, key, a newer or locked database, another key) print with their code; anything else is a bug and is rethrown. */
function printSetupError(error: unknown, json: boolean): number {
  if (error instanceof ErrandError) return printFailure({ code: error.code, message: error.message }, json);
  throw error;
}
