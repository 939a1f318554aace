import { ownerSecretReader, readServingEnvironment } from "../../app/servingEnvironment.js";
import { observeServedAttempts } from "../../app/observeServedAttempts.js";
import type { ServedHttp } from "../../app/serveHttp.js";
import { ConfigError } from "../../config/configError.js";
import { createPinoLogger, parseLogFormat, parseLogLevel } from "../http/observability/pinoLogger.js";
import { resolveServeSettings } from "../http/serveSettings.js";
import { BUILD_COMMIT, VERSION } from "../cli/version.js";
import type { HostedOptions } from "./openHostedErrand.js";
import { openHostedErrand } from "./openHostedErrand.js";

export interface FetchErrandOptions extends HostedOptions {
  /** Where the host listens, for the default public origin when ERRAND_PUBLIC_URL is unset (loopback only). */
  address?: { host: string; port: number };
  /** Where log lines go; standard error by default. */
  writeLog?: (line: string) => void;
}

/** errand as one fetch handler: every request (OAuth, MCP, REST, the owner console) goes through `fetch`. */
export interface FetchErrand {
  /** Answers one request; `info.remoteAddress` is the peer the host saw (absent on hosts that give none). */
  fetch(request: Request, info?: { remoteAddress?: string }): Promise<Response>;
  /** The origin tokens are issued for and the consent page is served on. */
  publicOrigin: string;
  close(): Promise<void>;
}

/**
 * errand's HTTP side as a fetch handler, for hosts where nothing outlives a request (Deno.serve,
 * a Val Town HTTP val): the same app `errand serve` runs, on the libSQL store, with the master key
 * and the owner password from the environment. Attempts run within the request that asks (when the
 * task fits ERRAND_REQUEST_LIMIT); nothing is scheduled: the interval entry (runDueWork) runs what
 * is due only when the owner sets it up.
 */
export async function openFetchErrand(options: FetchErrandOptions): Promise<FetchErrand> {
  const env = options.env;
  const address = options.address ?? { host: "127.0.0.1", port: 8787 };
  const publicUrl = (env["ERRAND_PUBLIC_URL"] ?? "").trim() || undefined;
  const serving = readServingEnvironment(env, { ...address, publicUrl });
  if (!serving.ok) throw new ConfigError(serving.message);
  const format = parseLogFormat((env["ERRAND_LOG_FORMAT"] ?? "").trim() || "json");
  const level = parseLogLevel(env["ERRAND_LOG_LEVEL"]);
  if (format === undefined) throw new ConfigError('ERRAND_LOG_FORMAT must be "text" or "json"');
  if (level === undefined) throw new ConfigError("ERRAND_LOG_LEVEL must be one of error, warn, info, debug");
  const logger = createPinoLogger({ format, level, write: options.writeLog ?? ((line) => console.error(line)) });

  let served: ServedHttp | undefined;
  const observed = observeServedAttempts(logger, () => served?.metrics);
  const errand = await openHostedErrand(options, {
    executorSettings: { allowPrivate: [], localBrowser: false, onNotice: (message) => logger.warn(message) },
    ...observed,
  });
  try {
    const { access } = errand.accessTables();
    const ownerSecret = await ownerSecretReader(serving.value.ownerPassword, access);
    if ((await ownerSecret()) === undefined) {
      throw new ConfigError(
        "No owner password is set, so nobody could approve ChatGPT: set ERRAND_OWNER_PASSWORD (at least 10 characters) in the host's environment.",
      );
    }
    const { extraRedirects, mcpAllowedOrigins } = serving.value;
    const settings = resolveServeSettings({ ...address, ...(publicUrl === undefined ? {} : { publicUrl }), extraRedirects, mcpAllowedOrigins });
    const http = await errand.http({
      settings,
      logger,
      ownerSecret,
      trustedProxies: serving.value.trustedProxies,
      extraRedirects,
      allowPrivate: [],
      version: VERSION,
      commit: BUILD_COMMIT,
      hosting: "request",
    });
    served = http;
    return {
      fetch: async (request, info) => http.fetch(request, { remoteAddress: info?.remoteAddress }),
      publicOrigin: settings.publicOrigin,
      async close() {
        try {
          await http.close(0);
        } finally {
          await errand.close();
        }
      },
    };
  } catch (error) {
    await errand.close();
    throw error;
  }
}
