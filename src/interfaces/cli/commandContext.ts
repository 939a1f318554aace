import { parseArgs } from "node:util";
import { resolveErrandHome } from "../../config/resolveErrandHome.js";
import { suggestNearest } from "./suggestNearest.js";
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

/** Options every command accepts. */
const GLOBAL_OPTIONS: OptionSpecs = { debug: { type: "boolean" } };

/**
 * Parses a command's arguments and reports every problem of the command line at once (unknown
 * options with the nearest known one, missing values, values given to flags, extra arguments),
 * instead of stopping at the first.
 */
export function parseCommandArgs(command: Command, args: string[], env: NodeJS.ProcessEnv): CommandContext {
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  const parsed = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const problems: string[] = [];
  const known = Object.keys(options).map((name) => `--${name}`);
  for (const token of parsed.tokens) {
    if (token.kind !== "option") continue;
    const spec = options[token.name];
    if (spec === undefined) {
      const hint = suggestNearest(token.rawName, known);
      problems.push(`unknown option ${token.rawName} for "errand ${command.name}"${hint === undefined ? "" : `; did you mean ${hint}?`}`);
    } else if (spec.type === "string" && token.value === undefined) {
      problems.push(`option ${token.rawName} needs a value`);
    } else if (spec.type === "boolean" && token.value !== undefined) {
      problems.push(`option ${token.rawName} takes no value`);
    }
  }
  if (parsed.positionals.length > command.maxPositionals) {
    problems.push(`too many arguments for "errand ${command.name}": ${parsed.positionals.slice(command.maxPositionals).join(" ")}`);
  }
  if (problems.length > 0) throw new UsageError(problems);
  return {
    positionals: parsed.positionals,
    values: parsed.values,
    errandHome: resolveErrandHome(env).path,
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
