import type { Command } from "../commandContext.js";
import { canonicalCommand } from "./canonical.js";
import { demoCommand } from "./demo.js";
import { digestCommand } from "./digest.js";
import { preflightCommand } from "./preflight.js";
import { runCommand } from "./run.js";
import { validateCommand } from "./validate.js";

/** Every CLI command, in the order the help lists them. */
export const COMMANDS: readonly Command[] = [validateCommand, canonicalCommand, digestCommand, runCommand, preflightCommand, demoCommand];
