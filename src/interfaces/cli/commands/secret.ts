import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { normalizeSecretSites } from "../../../secrets/secretSite.js";
import { SecretError } from "../../../secrets/secretTypes.js";
import { isSecretName } from "../../../task/secretName.js";
import type { SecretSourceInput, SecretSummary } from "../../../secrets/secretTypes.js";
import { flagOption, listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { openSecrets } from "../../../app/openSecrets.js";
import { printFailure } from "../operationOutput.js";
import { printEnvelope } from "../jsonEnvelope.js";
import { printErr, printOut, terminalInput } from "../output.js";
import { readPiped } from "../readPipedInput.js";
import { UsageError } from "../usageError.js";

export const secretCommand: Command = {
  name: "secret",
  summary: "declare the secrets tasks may type, each bound to the sites it may be typed into",
  options: {
    site: { type: "string", multiple: true },
    "from-env": { type: "string" },
    "from-file": { type: "string" },
    totp: { type: "boolean" },
    json: { type: "boolean" },
  },
  maxPositionals: 2,
  run: runSecret,
  help: `errand secret set NAME --site ORIGIN [--site ORIGIN]... [--from-env VAR | --from-file PATH | --totp]
errand secret list [--json]
errand secret delete NAME
  set     declares (or replaces) the secret NAME (a letter, then letters, digits or "_"; at most 64),
          typed by fill_secret {"secret":"NAME"} only into pages whose origin is one of its sites and
          sent only to those origins. ORIGIN is an exact origin (https://portal.example.com,
          http://127.0.0.1:8080) or one leading wildcard label (https://*.example.com); no paths.
          The value is read from the terminal without echo, or from piped standard input (one
          trailing newline dropped); never from the command line. It is stored encrypted
          (AES-256-GCM under a subkey of ERRAND_HOME/keys/master.key). --from-env VAR and
          --from-file PATH store only where to read it, each time a task uses it; ERRAND_* and
          provider variables (KERNEL_*, BROWSERLESS_*, BROWSERBASE_*, STEEL_*) and files inside
          ERRAND_HOME are refused. A value needs at least 8 characters without whitespace.
          --totp: the value read (without echo, or piped) is a TOTP seed (RFC 6238): an
          otpauth://totp/... URI (secret, digits 6-8, period 15-300 s, algorithm SHA1, SHA256 or
          SHA512) or a bare base32 key (6 digits, 30 s, SHA1). It is stored encrypted like a value;
          fill_secret with it types the code of the moment, computed when it is typed. The seed
          never leaves errand; the code is scrubbed from the attempt's receipt, outputs and errors.
  list    names, sites, kind (stored, env, file, totp) and dates; never a value. --json: data.secrets (docs/CLI.md).
  delete  removes the secret; tasks naming it are then BLOCKED (secret_unknown).
  Only this command manages secrets: neither the REST API nor MCP can read, list, set or delete them.`,
};

async function runSecret(ctx: CommandContext): Promise<number> {
  const action = ctx.positionals[0];
  const name = ctx.positionals[1];
  const config = resolveRuntimeConfig(ctx.env);
  if (action === "list") {
    if (name !== undefined) throw new UsageError("secret list takes no name");
    refuseSetOptions(ctx, "list");
    const opened = openSecrets(config, ctx.env, "read");
    try {
      return printList(await opened.registry.list(), flagOption(ctx, "json"));
    } finally {
      await opened.close();
    }
  }
  if (action !== "set" && action !== "delete") throw new UsageError('say "set NAME --site ORIGIN", "list" or "delete NAME"');
  if (name === undefined) throw new UsageError(`secret ${action} needs a NAME`);
  if (action === "delete") {
    refuseSetOptions(ctx, "delete");
    const opened = openSecrets(config, ctx.env);
    try {
      if (!(await opened.registry.delete(name)))
        return printFailure({ code: "secret_unknown", message: `No secret named ${name} is declared; nothing was deleted.` }, flagOption(ctx, "json"));
      printErr(`secret ${name} deleted`);
      return EXIT.pass;
    } catch (error) {
      return printSecretError(error, ctx);
    } finally {
      await opened.close();
    }
  }
  return runSet(ctx, name, config);
}

async function runSet(ctx: CommandContext, name: string, config: ReturnType<typeof resolveRuntimeConfig>): Promise<number> {
  const sites = listOption(ctx, "site");
  if (sites.length === 0) throw new UsageError("secret set needs at least one --site ORIGIN");
  const fromEnv = stringOption(ctx, "from-env");
  const fromFile = stringOption(ctx, "from-file");
  if (fromEnv !== undefined && fromFile !== undefined) throw new UsageError("give --from-env or --from-file, not both");
  const totp = flagOption(ctx, "totp");
  if (totp && (fromEnv !== undefined || fromFile !== undefined))
    throw new UsageError("--totp reads the seed from the terminal or piped standard input; it does not take --from-env or --from-file");
  // Name and sites are checked before the value is asked for, so a typo never costs a retyped secret.
  if (!isSecretName(name))
    return printSecretError(
      new SecretError(
        "invalid_secret_name",
        `"${name.slice(0, 70)}" is not a secret name: start with a letter, then letters, digits or "_", at most 64 characters.`,
      ),
      ctx,
    );
  const checkedSites = normalizeSecretSites(sites, "/sites");
  if (!checkedSites.ok) return printSecretError(new SecretError("invalid_secret_site", checkedSites.errors.map((e) => e.message).join(" ")), ctx);
  let source: SecretSourceInput;
  if (fromEnv !== undefined) source = { kind: "env", variable: fromEnv };
  else if (fromFile !== undefined) source = { kind: "file", path: fromFile };
  else if (totp) source = { kind: "totp", seed: await readValue(name, "TOTP seed (otpauth:// URI or base32 key)") };
  else source = { kind: "stored", value: await readValue(name) };
  const opened = openSecrets(config, ctx.env);
  try {
    const { created, secret, sourceReadable } = await opened.registry.set(name, sites, source);
    const from =
      secret.sourceKind === "totp"
        ? "TOTP seed, stored encrypted; fill_secret types its current code"
        : secret.sourceKind === "stored"
          ? "stored encrypted"
          : `read from ${secret.sourceKind === "env" ? `$${fromEnv ?? ""}` : "its file"} when used`;
    printErr(`secret ${secret.name} ${created ? "declared" : "replaced"} (${from}); may be typed into ${secret.sites.join(", ")}`);
    if (!sourceReadable) printErr(`note: that source is not readable now; tasks naming ${secret.name} end BLOCKED (secret_missing) until it is`);
    return EXIT.pass;
  } catch (error) {
    return printSecretError(error, ctx);
  } finally {
    await opened.close();
  }
}

/** The value comes from the terminal (no echo, asked twice) or piped standard input; never from argv. */
async function readValue(name: string, what = "Value"): Promise<string> {
  const terminal = terminalInput();
  if (terminal !== undefined) {
    const value = await terminal.ask(`${what} of ${name} (not shown): `, false);
    if ((await terminal.ask("Again: ", false)) !== value) throw new UsageError("the two entries differ; nothing was changed");
    return value;
  }
  return readPiped();
}

function refuseSetOptions(ctx: CommandContext, action: string): void {
  if (
    listOption(ctx, "site").length > 0 ||
    stringOption(ctx, "from-env") !== undefined ||
    stringOption(ctx, "from-file") !== undefined ||
    flagOption(ctx, "totp")
  ) {
    throw new UsageError(`--site, --from-env, --from-file and --totp belong to secret set, not secret ${action}`);
  }
}

function printList(secrets: SecretSummary[], json: boolean): number {
  if (json) {
    printEnvelope({ ok: true, status: "ok", data: { secrets } });
    return EXIT.pass;
  }
  if (secrets.length === 0) {
    printOut("no secrets declared (errand secret set NAME --site ORIGIN)");
    return EXIT.pass;
  }
  for (const s of secrets) printOut(`${s.name}  ${s.sourceKind.padEnd(6)}  ${s.sites.join(" ")}  (updated ${s.updatedAt})`);
  return EXIT.pass;
}

function printSecretError(error: unknown, ctx: CommandContext): number {
  if (error instanceof SecretError) return printFailure({ code: error.code, message: `${error.message} Nothing was changed.` }, flagOption(ctx, "json"));
  throw error;
}
