import { ErrandError } from "../../errors/errandError.js";
import { resolveSecretFiles } from "../../config/secretFiles.js";
import { KeyError, MissingKeyError } from "../../keys/loadKey.js";
import { parseCommandArgs } from "./commandContext.js";
import { settleRotationBeforeCommand } from "./settleRotation.js";
import { exposedKeyWarning } from "../../app/masterKey.js";
import type { Command } from "./commandContext.js";
import { COMMANDS } from "./commands/index.js";
import { EXIT } from "./exitCodes.js";
import { printFailure } from "./operationOutput.js";
import { printErr, printOut, withOutputSink } from "./output.js";
import type { OutputSink } from "./output.js";
import { suggestNearest } from "./suggestNearest.js";
import { UsageError } from "./usageError.js";
import { printEnvelope } from "./jsonEnvelope.js";
import { BUILD_COMMIT, VERSION, versionLine } from "./version.js";
import { errorMessage } from "../../errors/errorMessage.js";

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
    "Run 'errand help <command>' (or 'errand <command> --help') for a command's options.",
    "Global: --debug prints stack traces. --json prints one object of the shape in docs/CLI.md.",
    "State lives in ERRAND_HOME (default $XDG_STATE_HOME/errand, else ~/.local/state/errand; 'errand doctor' shows it).",
    "With ERRAND_DATABASE_URL=postgres://... (or --database-url on any command) every command uses that PostgreSQL",
    "database instead of ERRAND_HOME/errand.db (the master key stays in ERRAND_HOME/keys); 'errand migrate' sets it up.",
    "A libSQL URL there (file:PATH, libsql://HOST, https://HOST) keeps tasks, operations and serving in libSQL;",
    "key rotation, migrate, backup and the provider and owner registry commands refuse it.",
  ].join("\n");
}

async function findCommand(name: string): Promise<Command | undefined> {
  return COMMANDS.find((c) => c.name === name)?.load();
}

function unknownCommand(name: string, json: boolean): number {
  const hint = suggestNearest(
    name,
    COMMANDS.map((c) => c.name),
  );
  const message = `unknown command "${name}".${hint === undefined ? "" : ` Did you mean "errand ${hint}"?`} Run 'errand help' for the list.`;
  if (json) return printFailure({ code: "usage", message }, true);
  printErr(`error: ${message}`);
  return EXIT.usage;
}

/**
 * `--database-url URL` (or `--database-url=URL`) works on every command: it stands for
 * ERRAND_DATABASE_URL (and wins over it), so the choice of store is made in one place
 * (app/openStores, from the runtime configuration) whichever way it was given.
 */
function takeDatabaseUrl(rest: readonly string[]): { args: string[]; databaseUrl: string | undefined } {
  const args: string[] = [];
  let databaseUrl: string | undefined;
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] ?? "";
    if (arg === "--database-url") {
      const value = rest[i + 1];
      if (value === undefined || value.startsWith("--"))
        throw new UsageError("--database-url needs a value: postgres://USER@HOST:PORT/DATABASE or file:PATH (libSQL)");
      databaseUrl = value;
      i += 1;
    } else if (arg.startsWith("--database-url=")) {
      databaseUrl = arg.slice("--database-url=".length);
    } else {
      args.push(arg);
    }
  }
  return { args, databaseUrl };
}

/**
 * The whole CLI as a function of its arguments and environment, returning the exit code. main.ts
 * calls it for the real process (output on the process's streams); `io` gives this one run its own
 * stdout, stderr and stdin instead (tests run the CLI in process with captured output), kept apart
 * from any other run in flight.
 */
export function runCli(argv: readonly string[], env: NodeJS.ProcessEnv, io?: OutputSink): Promise<number> {
  return io === undefined ? runCommandLine(argv, env) : withOutputSink(io, () => runCommandLine(argv, env));
}

async function runCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [name, ...rest] = argv;
  const json = rest.includes("--json");
  if (name === undefined || name === "--help" || name === "-h") {
    printOut(generalHelp());
    return name === undefined ? EXIT.usage : EXIT.pass;
  }
  if (name === "help") {
    const topic = rest.find((arg) => !arg.startsWith("-"));
    if (topic === undefined) {
      printOut(generalHelp());
      return EXIT.pass;
    }
    const command = await findCommand(topic);
    if (command === undefined) return unknownCommand(topic, json);
    printOut(command.help);
    return EXIT.pass;
  }
  if (name === "--version" || name === "version") {
    if (json) printEnvelope({ ok: true, status: "ok", data: { version: VERSION, commit: BUILD_COMMIT } });
    else printOut(versionLine());
    return EXIT.pass;
  }
  const command = await findCommand(name);
  if (command === undefined) return unknownCommand(name, json);
  if (rest.includes("--help") || rest.includes("-h")) {
    printOut(command.help);
    return EXIT.pass;
  }
  const debug = rest.includes("--debug");
  try {
    const { args, databaseUrl } = takeDatabaseUrl(rest);
    const resolvedEnv = resolveSecretFiles(databaseUrl === undefined ? env : { ...env, ERRAND_DATABASE_URL: databaseUrl, ERRAND_DATABASE_URL_FILE: undefined });
    const parsed = parseCommandArgs(command, args, resolvedEnv);
    const exposed = exposedKeyWarning(parsed.errandHome);
    if (exposed !== null) printErr(exposed);
    await settleRotationBeforeCommand(parsed.errandHome, resolvedEnv);
    return await command.run(parsed);
  } catch (error) {
    if (debug && !(error instanceof UsageError) && error instanceof Error && error.stack !== undefined) printErr(error.stack);
    if (error instanceof UsageError) {
      const usage = command.help.split("\n")[0] ?? "";
      if (json)
        return printFailure(
          { code: "usage", message: `${error.message}. usage: ${usage}`, problems: error.problems.map((message) => ({ path: "", message, code: "usage" })) },
          true,
        );
      for (const problem of error.problems) printErr(`error: ${problem}`);
      printErr(`usage: ${usage}\n  'errand help ${command.name}' explains every option.`);
      return EXIT.usage;
    }
    // A bad --key-file is the caller's input (exit 2); a missing master key is errand's state (MissingKeyError, below).
    if (error instanceof KeyError && !(error instanceof MissingKeyError)) {
      printFailure({ code: "key_error", message: error.message }, json);
      return EXIT.usage;
    }
    // errand's own errors (a setting it cannot use, a missing key, the database): exit code from the code (exitForFailure).
    if (error instanceof ErrandError) return printFailure({ code: error.code, message: error.message }, json);
    printFailure({ code: "internal_error", message: errorMessage(error) }, json);
    return EXIT.fail;
  }
}
