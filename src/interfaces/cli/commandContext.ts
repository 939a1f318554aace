import { parseArgs } from "node:util";
import { UsageError } from "./usageError.js";

type OptionSpec = { type: "string" | "boolean"; multiple?: boolean; short?: string };
export type OptionSpecs = Record<string, OptionSpec>;

/** What every command receives: its own arguments, parsed strictly, and where errand keeps state. */
export interface CommandContext {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  errandHome: string;
  env: NodeJS.ProcessEnv;
}

/** A CLI command: its name, help text, accepted options and handler (which returns the exit code). */
export interface Command {
  name: string;
  summary: string;
  help: string;
  options: OptionSpecs;
  maxPositionals: number;
  run(ctx: CommandContext): number | Promise<number>;
}

export function parseCommandArgs(command: Command, args: string[], env: NodeJS.ProcessEnv): CommandContext {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...command.options, debug: { type: "boolean" } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length > command.maxPositionals) {
    throw new UsageError(`too many arguments for "errand ${command.name}": ${parsed.positionals.slice(command.maxPositionals).join(" ")}`);
  }
  return {
    positionals: parsed.positionals,
    values: parsed.values,
    errandHome: env["ERRAND_HOME"] ?? ".errand",
    env,
  };
}

export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.values[name];
  return typeof value === "string" ? value : undefined;
}

export function listOption(ctx: CommandContext, name: string): string[] {
  const value = ctx.values[name];
  return Array.isArray(value) ? value : [];
}

export function flagOption(ctx: CommandContext, name: string): boolean {
  return ctx.values[name] === true;
}
