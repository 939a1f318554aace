import type { HttpLogger } from "../../http/httpLogger.js";
import { listOption, stringOption } from "../commandContext.js";
import type { Command, CommandContext } from "../commandContext.js";
import { EXIT } from "../exitCodes.js";
import { openOperations } from "../openOperations.js";
import type { ServedHttp } from "../../../app/serveHttp.js";
import { serveProviderSmoke } from "../serveProviderSmoke.js";
import { printFailure } from "../operationOutput.js";
import { printErr, printOut, setLineShape, setStderrWriter } from "../output.js";
import { UsageError } from "../usageError.js";
import { BUILD_COMMIT, VERSION } from "../version.js";
import { withOperations } from "../withOperations.js";
import { errorMessage } from "../../../errors/errorMessage.js";

export const serveCommand: Command = {
  name: "serve",
  summary: "serve MCP (OAuth) for ChatGPT and the REST API (API tokens) over HTTP",
  options: {
    host: { type: "string" },
    port: { type: "string" },
    "public-url": { type: "string" },
    "allow-private": { type: "string", multiple: true },
    "log-format": { type: "string" },
  },
  maxPositionals: 0,
  run: runServe,
  help: `errand serve [--host 127.0.0.1] [--port 8787] [--public-url URL] [--allow-private HOST:PORT]... [--log-format text|json]
  Serves MCP at /mcp (OAuth 2.1: the owner approves each client with the owner password), the REST
  API at /v1 (API tokens from "errand token create"), /metrics (Prometheus text, an API token as
  Bearer), /readyz (503 with the reason while the store, the key or a browser is missing) and
  /healthz (answers any Host). Binds loopback by default; put a
  TLS reverse proxy or tunnel in front and pass its https origin as --public-url (see
  docs/CHATGPT_SETUP.md). Needs an owner password: "errand owner set-password" or
  ERRAND_OWNER_PASSWORD. ERRAND_OAUTH_EXTRA_REDIRECTS admits exact extra OAuth redirect URIs;
  ERRAND_MCP_ALLOWED_ORIGINS lists browser origins allowed to call /mcp (others get 403).
  Behind a reverse proxy or tunnel, list its address in ERRAND_TRUSTED_PROXIES (IPs or CIDR ranges)
  so per-address limits (owner-password lockout) see the client from X-Forwarded-For; forwarded
  headers from a peer not listed there are ignored, logged once (then at most hourly) and reported
  by "errand doctor"; an https --public-url with none listed is warned about at start. A password
  set with "errand owner set-password" counts at once.
  The owner console is at /owner: log in with the owner password to approve or deny tasks that
  wait for you (ERRAND_OWNER_APPROVAL) and to read recent receipts.
  Tasks run in this process, on their own: a worker pool claims queued operations as they are
  submitted (and those queued before the server started), runs up to ERRAND_CONCURRENCY (default 2)
  attempts at once, each in its own browser context or provider session, runs a delayed read-only
  retry when it falls due, and recovers expired leases. At start and then hourly it compacts
  operations that finished more than ERRAND_COMPACT_AFTER ago (default 30d; "off" leaves it to
  "errand journal compact"): their final status stays, their receipts and events go.
  errand_run waits up to 25 s by default (45 s at most); extracted values stay available to
  collect for ERRAND_RESULT_TTL (default 10m).
  --allow-private admits exact private destinations.
  Logs one line per request (with its X-Request-Id) and per attempt on stderr (--log-format json for
  a log pipeline: then every line serve prints, banner included, is JSON); ERRAND_LOG_LEVEL
  (error, warn, info (default), debug) sets how much; probes and scrapes log at debug.
  Every flag has an environment variable: ERRAND_HOST, ERRAND_PORT, ERRAND_PUBLIC_URL,
  ERRAND_ALLOW_PRIVATE (comma-separated, added to the flags), ERRAND_LOG_FORMAT; a flag wins.
  Stops on SIGINT/SIGTERM: no new attempt starts; running ones get ERRAND_SHUTDOWN_GRACE_MS
  (default 30 s) to finish, and their leases cover anything cut off.`,
};

/** The environment variable behind each serve flag (the systemd unit and compose file use these; a test checks both). */
export const SERVE_FLAG_ENV: Readonly<Record<string, string>> = {
  host: "ERRAND_HOST",
  port: "ERRAND_PORT",
  "public-url": "ERRAND_PUBLIC_URL",
  "allow-private": "ERRAND_ALLOW_PRIVATE",
  "log-format": "ERRAND_LOG_FORMAT",
};

/** A serve setting: the flag when given, else its ERRAND_* variable, else undefined. */
function serveSetting(ctx: CommandContext, flag: string): string | undefined {
  const fromFlag = stringOption(ctx, flag);
  if (fromFlag !== undefined) return fromFlag;
  const name = SERVE_FLAG_ENV[flag];
  const value = name === undefined ? undefined : ctx.env[name];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function servePort(ctx: CommandContext): number {
  const raw = serveSetting(ctx, "port");
  if (raw === undefined) return 8787;
  const value = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(value >= 0 && value <= 65535)) throw new UsageError(`--port (or ERRAND_PORT) must be a whole number from 0 to 65535, not "${raw.slice(0, 20)}"`);
  return value;
}

async function runServe(ctx: CommandContext): Promise<number> {
  const host = serveSetting(ctx, "host") ?? "127.0.0.1";
  const port = servePort(ctx);
  const publicUrl = serveSetting(ctx, "public-url");
  const allowPrivate = listOption(ctx, "allow-private");
  const { createPinoLogger, parseLogFormat, parseLogLevel, plainLineAsJson, LOG_LEVELS } = await import("../../http/observability/pinoLogger.js");
  const logFormat = parseLogFormat(serveSetting(ctx, "log-format"));
  if (logFormat === undefined) throw new UsageError(`--log-format (or ERRAND_LOG_FORMAT) must be "text" or "json"`);
  const logLevel = parseLogLevel(ctx.env["ERRAND_LOG_LEVEL"]);
  if (logLevel === undefined) throw new UsageError(`ERRAND_LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);
  // With JSON logs, every line serve prints (banner, notices, the shutdown line, errors) is a JSON log line.
  if (logFormat === "json") setLineShape((line) => plainLineAsJson(line));
  // Serve's stderr (the log included) is written off the event loop: a slow reader of the log
  // (journald under load, a full pipe) would otherwise stall every task running here.
  const { createAsyncWriter } = await import("../asyncWriter.js");
  const stderr = createAsyncWriter(2, undefined, logFormat === "json" ? (line) => plainLineAsJson(line) : undefined);
  const flushAtExit = () => stderr.flushSync();
  process.once("exit", flushAtExit);
  setStderrWriter((text) => stderr.write(text));
  try {
    return await serveWith(ctx, { host, port, publicUrl, allowPrivate, logger: createPinoLogger({ format: logFormat, write: printErr, level: logLevel }) });
  } finally {
    setLineShape(undefined);
    await stderr.flush();
    setStderrWriter(undefined);
    process.off("exit", flushAtExit);
  }
}

async function serveWith(
  ctx: CommandContext,
  options: { host: string; port: number; publicUrl: string | undefined; allowPrivate: string[]; logger: HttpLogger },
): Promise<number> {
  const { host, port, publicUrl, allowPrivate, logger } = options;
  // Loaded on demand: the HTTP stack is only needed by this command.
  const [{ resolveServeSettings }, { listenNode }, { readServingEnvironment, ownerSecretReader }, { observeServedAttempts }] = await Promise.all([
    import("../../http/serveSettings.js"),
    import("../../http/serveNode.js"),
    import("../../../app/servingEnvironment.js"),
    import("../../../app/observeServedAttempts.js"),
  ]);
  const serving = readServingEnvironment(ctx.env, { host, port, publicUrl }, allowPrivate);
  if (!serving.ok) return printFailure({ code: serving.code, message: serving.message }, false);
  const { extraRedirects, mcpAllowedOrigins, trustedProxies } = serving.value;

  // The login page a login_required receipt names is on this server's public URL, flag or variable.
  const env = publicUrl === undefined ? ctx.env : { ...ctx.env, ERRAND_PUBLIC_URL: publicUrl };
  let served: ServedHttp | undefined;
  return withOperations(
    ctx,
    async (errand) => {
      const { access } = errand.accessTables();
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      let listener: Awaited<ReturnType<typeof listenNode>> | undefined;
      try {
        const ownerSecret = await ownerSecretReader(serving.value.ownerPassword, access);
        if ((await ownerSecret()) === undefined) {
          return printFailure(
            {
              code: "configuration_error",
              message:
                'No owner password is set, so nobody could approve ChatGPT. Run "errand owner set-password" (or set ERRAND_OWNER_PASSWORD), then start errand serve again.',
            },
            false,
          );
        }
        try {
          listener = await listenNode({ host, port });
        } catch (error) {
          return printFailure({ code: "configuration_error", message: `Cannot listen on ${host}:${port}: ${errorMessage(error)}` }, false);
        }
        const settings = resolveServeSettings({
          host,
          port: listener.port,
          ...(publicUrl === undefined ? {} : { publicUrl }),
          extraRedirects,
          mcpAllowedOrigins,
        });
        served = await errand.http({
          settings,
          logger,
          ownerSecret,
          trustedProxies,
          extraRedirects,
          allowPrivate,
          version: VERSION,
          commit: BUILD_COMMIT,
          smokeProvider: serveProviderSmoke({ env, digest: (task) => errand.requestDigest(task), executor: () => errand.executor() }),
        });
        const handler = served;
        listener.setHandler((request, nodeEnv) => handler.fetch(request, nodeEnv));

        const bound = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
        if (publicUrl !== undefined && settings.secureCookies && trustedProxies.entries.length === 0) {
          // An https public URL means a proxy or tunnel in front; untrusted, it makes every client one address.
          logger.warn(
            "ERRAND_TRUSTED_PROXIES is empty, but the public URL is https, so a proxy or tunnel is in front: errand will count every client as the proxy's address, and a stranger's wrong owner passwords will lock the owner out too. List the proxy's address (127.0.0.1,::1 when it runs on this host).",
            { publicUrl: settings.publicOrigin },
          );
        }
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
        printErr(
          `errand serve: stopping; no new attempt starts, running ones get up to ${Math.round(errand.config.shutdownGraceMs / 1000)} s to finish (ERRAND_SHUTDOWN_GRACE_MS)`,
        );
        return EXIT.pass;
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await listener?.close();
        const left = await served?.close(errand.config.shutdownGraceMs);
        if (left !== undefined && left.unfinished > 0)
          printErr(`errand serve: ${left.unfinished} attempt(s) still running were left to their leases; the next runner recovers them`);
      }
    },
    (c) =>
      openOperations(
        { ...c, env },
        {
          allowPrivate,
          longLived: true,
          ...observeServedAttempts(logger, () => served?.metrics),
        },
      ),
  );
}
