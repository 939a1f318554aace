import type { Command } from "../commandContext.js";
import { approveCommand } from "./approve.js";
import { backupCommand } from "./backup.js";
import { denyCommand } from "./deny.js";
import { cancelCommand } from "./cancel.js";
import { canonicalCommand } from "./canonical.js";
import { collectCommand } from "./collect.js";
import { demoCommand } from "./demo.js";
import { digestCommand } from "./digest.js";
import { doctorCommand } from "./doctor.js";
import { inspectCommand } from "./inspect.js";
import { journalCommand } from "./journal.js";
import { preflightCommand } from "./preflight.js";
import { providerCommand } from "./provider.js";
import { restoreCommand } from "./restore.js";
import { runCommand } from "./run.js";
import { ownerCommand } from "./owner.js";
import { runnerCommand } from "./runner.js";
import { secretCommand } from "./secret.js";
import { serveCommand } from "./serve.js";
import { statusCommand } from "./status.js";
import { submitCommand } from "./submit.js";
import { tokenCommand } from "./token.js";
import { validateCommand } from "./validate.js";

/** Every CLI command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [validateCommand, canonicalCommand, digestCommand, runCommand, preflightCommand, demoCommand,
  submitCommand, approveCommand, denyCommand, runnerCommand, inspectCommand, collectCommand, cancelCommand, statusCommand, journalCommand,
  providerCommand, secretCommand, serveCommand, tokenCommand, ownerCommand, doctorCommand, backupCommand, restoreCommand];
