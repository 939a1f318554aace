#!/usr/bin/env node
import { ConfigError } from "../../config/runtimeConfig.js";
import { KeyError } from "../../keys/loadKey.js";
import { parseCommandArgs } from "./commandContext.js";
import { COMMANDS } from "./commands/index.js";
import { EXIT } from "./exitCodes.js";
import { printErr, printOut } from "./output.js";
import { UsageError } from "./usageError.js";

const VERSION = "0.1.0";

function generalHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  const lines = COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    "errand: run declarative browser tasks safely and get a verified receipt.",
    "",
    "usage: errand <command> [options]",
    "",
    "commands:",
    ...lines,
    "",
    "Run 'errand <command> --help' for a command's options. Global: --debug prints stack traces.",
    "State lives in ERRAND_HOME (default ./.errand).",
  ].join("\n");
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    printOut(generalHelp());
    return name === undefined ? EXIT.usage : EXIT.pass;
  }
  if (name === "--version" || name === "version") {
    printOut(VERSION);
    return EXIT.pass;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    printErr(`error: unknown command "${name}". Run 'errand --help' for the list.`);
    return EXIT.usage;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    printOut(command.help);
    return EXIT.pass;
  }
  const debug = rest.includes("--debug");
  try {
    return await command.run(parseCommandArgs(command, rest, env));
  } catch (error) {
    if (debug && !(error instanceof UsageError) && error instanceof Error && error.stack !== undefined) printErr(error.stack);
    if (error instanceof UsageError) {
      printErr(`error: ${error.message}\nusage: ${command.help.split("\n")[0] ?? ""}`);
      return EXIT.usage;
    }
    if (error instanceof ConfigError) {
      // A setting errand cannot use (an ERRAND_* variable, say): errand's state, not the caller's input.
      printErr(`error: ${error.message} [configuration_error]`);
      return EXIT.fail;
    }
    if (error instanceof KeyError) {
      printErr(`error: ${error.message} [key_error]`);
      return EXIT.usage;
    }
    printErr(`error: ${error instanceof Error ? error.message : String(error)} [internal_error]`);
    return EXIT.fail;
  }
}

process.exitCode = await main(process.argv.slice(2), process.env);
