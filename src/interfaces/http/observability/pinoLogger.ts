import { pino } from "pino";
import type { HttpLogger } from "../httpLogger.js";
import { currentRequestId } from "./requestContext.js";
import { RepeatGate, failureKind } from "./repeatGate.js";

export type LogFormat = "json" | "text";

/** ERRAND_LOG_LEVEL's values, most to least severe: a level logs its own lines and the more severe ones. */
export const LOG_LEVELS = ["error", "warn", "info", "debug"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Field names whose values must never be logged, whatever a caller passes (defence in depth). */
const REDACTED_KEYS = ["authorization", "cookie", "password", "token", "secret", "value", "text", "body"];

/** How long repeats of one kind of failure stay out of the log after it was logged. */
export const REPEAT_INTERVAL_MS = 60_000;

/**
 * The service log: one line per event through pino, as JSON (for a log pipeline: `time`, `level`,
 * `msg`, the caller's fields, `failure` {kind, message} on an error, and `requestId` on every line written while an HTTP request is
 * handled) or as text ("2026-12-01T10:00:00.000Z info request method=GET path=/healthz status=200
 * ms=1"). Lines go to `write` (the CLI sends them to stderr through its scrubber). Callers pass only
 * ids, names, statuses, counts and durations; the keys in REDACTED_KEYS are censored anyway.
 * Failures are logged once per (message, kind of failure) per REPEAT_INTERVAL_MS, with the kind and
 * the error's message; the stack only at level debug.
 */
export function createPinoLogger(options: { format: LogFormat; write: (line: string) => void; level?: LogLevel; clock?: () => number }): HttpLogger {
  const destination = {
    write(line: string) {
      options.write(options.format === "json" ? line.replace(/\n$/, "") : toText(line));
    },
  };
  const logger = pino(
    {
      level: options.level ?? "info",
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId === undefined ? {} : { requestId };
      },
      redact: { paths: REDACTED_KEYS.map((k) => `*.${k}`).concat(REDACTED_KEYS), censor: "[REDACTED]" },
    },
    destination,
  );
  const repeats = new RepeatGate(REPEAT_INTERVAL_MS, options.clock);
  return {
    debug: (message, fields) => logger.debug(fields ?? {}, message),
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, error) => {
      const kind = failureKind(error);
      const admitted = repeats.admit(`${message}\u0000${kind}`);
      if (!admitted.log) return;
      const reason = (error instanceof Error ? error.message : String(error)).split("\n")[0]?.slice(0, 500) ?? "";
      const stack = logger.isLevelEnabled("debug") && error instanceof Error ? { stack: error.stack ?? "" } : {};
      logger.error({ failure: { kind, message: reason, ...stack }, ...(admitted.suppressed > 0 ? { repeatsLeftOut: admitted.suppressed } : {}) }, message);
    },
  };
}

function toText(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.replace(/\n$/, "");
  }
  const { time, level, msg, failure: err, ...fields } = record;
  const extra = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join("");
  const failure = typeof err === "object" && err !== null ? `: ${failureText(err)}` : "";
  return `${String(time)} ${String(level)} ${String(msg)}${extra}${failure}`;
}

function failureText(err: { kind?: string; stack?: string; message?: string }): string {
  if (err.stack !== undefined && err.stack !== "") return err.stack;
  return err.kind === undefined ? String(err.message) : `${err.message} (${err.kind})`;
}

/**
 * One line errand printed as plain text (serve's banner, a notice, an error before the logger
 * existed) as a JSON log line of the same shape as the logger's (`level`, `time`, `msg`): "error:"
 * lines at error, "notice:" and "warning:" lines at warn, the rest at info. A line that is already
 * a JSON object (the logger's own) is left as it is.
 */
export function plainLineAsJson(line: string, clock: () => number = Date.now): string {
  if (line.startsWith("{")) {
    try {
      JSON.parse(line);
      return line;
    } catch {
      // Not JSON after all: wrapped below like any other text.
    }
  }
  const level = /^error\b/i.test(line) ? "error" : /^(notice|warning)\b/i.test(line) ? "warn" : "info";
  return JSON.stringify({ level, time: new Date(clock()).toISOString(), msg: line });
}

/** ERRAND_LOG_FORMAT: "json" or "text" (the default); anything else is refused by the caller. */
export function parseLogFormat(raw: string | undefined): LogFormat | undefined {
  if (raw === undefined || raw === "") return "text";
  return raw === "json" || raw === "text" ? raw : undefined;
}

/** ERRAND_LOG_LEVEL: one of LOG_LEVELS ("info" when unset); anything else is refused by the caller. */
export function parseLogLevel(raw: string | undefined): LogLevel | undefined {
  if (raw === undefined || raw.trim() === "") return "info";
  const level = raw.trim().toLowerCase();
  return (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : undefined;
}
