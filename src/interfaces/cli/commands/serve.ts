import { resolveRuntimeConfig } from "../../../config/runtimeConfig.js";
import { parseAllowPrivate } from "../../../policy/parseAllowPrivate.js";
import type { ProviderCapability } from "../../http/httpDeps.js";
import type { HttpLogger } from "../../http/httpLogger.js";
import { listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { createExecutor } from "../executorFactory.js";
import type { WiredExecutor } from "../executorFactory.js";
import { integerOption } from "../integerOption.js";
import { openOperations } from "../openOperations.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut } from "../output.js";
import { VERSION } from "../version.js";
import { withOperations } from "../withOperations.js";

const PURGE_EVERY_MS = 60 * 60 * 1000;

export const serveCommand: Command = {
  name: "serve",
  summary: "serve MCP (OAuth) for ChatGPT and the REST API (API tokens) over HTTP",
  options: {
    host: { type: "string" },
    port: { type: "string" },
    "public-url": { type: "string" },
    "allow-private": { type: "string", multiple: true },
  },
  maxPositionals: 0,
  run: runServe,
  help: `errand serve [--host 127.0.0.1] [--port 8787] [--public-url URL] [--allow-private HOST:PORT]...
  Serves MCP at /mcp (OAuth 2.1: the owner approves each client with the owner password), the REST
  API at /v1 (API tokens from "errand token create") and /healthz. Binds loopback by default; put a
  TLS reverse proxy or tunnel in front and pass its https origin as --public-url (see
  docs/CHATGPT_SETUP.md). Needs an owner password: "errand owner set-password" or
  ERRAND_OWNER_PASSWORD. ERRAND_OAUTH_EXTRA_REDIRECTS admits exact extra OAuth redirect URIs.
  Tasks run in this process on local Chromium; --allow-private admits exact private destinations.
  Stops on SIGINT/SIGTERM.`,
};

function stderrLogger(): HttpLogger {
  const line = (level: string, message: string, fields?: Record<string, string | number | boolean | null>) => {
    const extra = fields === undefined ? "" : Object.entries(fields).map(([k, v]) => ` ${k}=${String(v)}`).join("");
    printErr(`${new Date().toISOString()} ${level} ${message}${extra}`);
  };
  return {
    info: (message, fields) => line("info", message, fields),
    warn: (message, fields) => line("warn", message, fields),
    error: (message, error) => line("error", `${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  };
}

async function runServe(ctx: CommandContext): Promise<number> {
  const host = stringOption(ctx, "host") ?? "127.0.0.1";
  const port = integerOption(ctx, "port", 0, 65535) ?? 8787;
  const publicUrl = stringOption(ctx, "public-url");
  const allowPrivate = listOption(ctx, "allow-private");
  // Loaded on demand: the HTTP stack is only needed by this command.
  const [{ resolveServeSettings, parseExtraRedirects, ServeSettingsError }, { createApp }, { listenNode, nodeClientAddress }, { createQueueDriver }, { hashOwnerPassword, ownerPasswordProblem }, { openAccess }, { findChromium }] =
    await Promise.all([
      import("../../http/serveSettings.js"),
      import("../../http/createApp.js"),
      import("../../http/serveNode.js"),
      import("../../http/queueDriver.js"),
      import("../../http/oauth/ownerPassword.js"),
      import("../openAccess.js"),
      import("../../../providers/local/findChromium.js"),
    ]);

  let extraRedirects: string[];
  try {
    extraRedirects = parseExtraRedirects(ctx.env["ERRAND_OAUTH_EXTRA_REDIRECTS"]);
    resolveServeSettings({ host, port: port === 0 ? 1 : port, ...(publicUrl === undefined ? {} : { publicUrl }) });
  } catch (error) {
    if (error instanceof ServeSettingsError) return printFailure({ code: "configuration_error", message: error.message }, false);
    throw error;
  }
  const allowances = parseAllowPrivate([...allowPrivate, ...(ctx.env["ERRAND_ALLOW_PRIVATE"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")]);
  if (!allowances.ok) return printFailure({ code: "usage", message: allowances.errors.map((e) => e.message).join("; ") }, false);
  const envPassword = ctx.env["ERRAND_OWNER_PASSWORD"];
  if (envPassword !== undefined && envPassword !== "") {
    const problem = ownerPasswordProblem(envPassword);
    if (problem !== null) return printFailure({ code: "configuration_error", message: `ERRAND_OWNER_PASSWORD: ${problem}` }, false);
  }

  let executor: WiredExecutor | undefined;
  let executorStarting: Promise<WiredExecutor> | undefined;
  const logger = stderrLogger();
  return withOperations(
    ctx,
    async (opened) => {
      const { access, hasher } = openAccess(opened);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      const queue = createQueueDriver({ service: opened.service, logger });
      let listener: Awaited<ReturnType<typeof listenNode>> | undefined;
      let purge: NodeJS.Timeout | undefined;
      try {
        const ownerSecret = envPassword !== undefined && envPassword !== "" ? await hashOwnerPassword(envPassword) : await access.readOwnerSecret();
        if (ownerSecret === undefined) {
          return printFailure({ code: "configuration_error", message: 'No owner password is set, so nobody could approve ChatGPT. Run "errand owner set-password" (or set ERRAND_OWNER_PASSWORD), then start errand serve again.' }, false);
        }
        try {
          listener = await listenNode({ host, port });
        } catch (error) {
          return printFailure({ code: "configuration_error", message: `Cannot listen on ${host}:${port}: ${error instanceof Error ? error.message : String(error)}` }, false);
        }
        const settings = resolveServeSettings({ host, port: listener.port, ...(publicUrl === undefined ? {} : { publicUrl }), extraRedirects });
        const chromium = findChromium(ctx.env);
        // Loaded here, not at the top: the provider SDKs would slow every other command's start.
        const { CLOUD_PROVIDER_NAMES, createCloudProvider } = await import("../../../providers/createCloudProvider.js");
        const providers = (): ProviderCapability[] => [
          { name: "local", kind: "local", usable: chromium !== null, note: chromium === null ? "No Chromium found: install Debian's chromium or set CHROME_PATH." : "Chromium on the errand host, behind the egress filter." },
          ...CLOUD_PROVIDER_NAMES.map((name) => {
            const missing = createCloudProvider(name, { env: ctx.env }).missingConfiguration();
            return missing === null
              ? { name, kind: "cloud" as const, usable: true, note: `Credential set; "auto" tasks use it once 'errand provider smoke ${name}' has passed (see 'errand provider list').` }
              : { name, kind: "cloud" as const, usable: false, note: missing };
          }),
        ];
        const app = createApp({
          settings,
          service: opened.service,
          access,
          hasher,
          ownerSecret: () => Promise.resolve(ownerSecret),
          queue,
          providers,
          clientAddress: nodeClientAddress,
          logger,
          version: VERSION,
        });
        listener.setHandler((request, env) => app.fetch(request, env));
        await access.purgeExpired(Date.now());
        purge = setInterval(() => void access.purgeExpired(Date.now()).catch((error: unknown) => logger.error("Purging expired tokens failed", error)), PURGE_EVERY_MS);
        purge.unref();

        const bound = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
        printOut(`errand serve: listening on http://${bound}:${listener.port}`);
        printOut(`MCP URL: ${settings.mcpResource}`);
        printOut(`REST API: ${settings.publicOrigin}/v1 (OpenAPI at /v1/openapi.json; API tokens: errand token create --name NAME)`);
        printOut(
          publicUrl === undefined
            ? "Next: ChatGPT cannot reach a loopback address. Put an HTTPS reverse proxy or tunnel in front of this port and restart with --public-url https://YOUR-HOST (docs/CHATGPT_SETUP.md)."
            : `Next: in ChatGPT, Settings > Apps > Advanced settings > Developer mode > Create app; URL ${settings.mcpResource}; authentication OAuth; approve on the consent page with the owner password.`,
        );
        await new Promise<void>((resolve) => {
          if (stop.signal.aborted) resolve();
          stop.signal.addEventListener("abort", () => resolve(), { once: true });
        });
        printErr("errand serve: stopping (the attempt in hand finishes first)");
        return EXIT.pass;
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        if (purge !== undefined) clearInterval(purge);
        await listener?.close();
        await queue.close();
        await (executor ?? (await executorStarting?.catch(() => undefined)))?.shutdown();
        await access.close();
      }
    },
    (c) =>
      openOperations(c, {
        execute: async (task, context) => {
          if (executor === undefined) {
            // The browser starts on the first task, so serving costs nothing until something runs.
            executorStarting ??= createExecutor({ env: ctx.env, allowPrivate, browserTimeoutMs: resolveRuntimeConfig(c.env).browserTimeoutMs });
            executor = await executorStarting;
          }
          return executor.execute(task, context);
        },
      }),
  );
}
