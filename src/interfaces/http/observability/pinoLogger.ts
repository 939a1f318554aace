import { pino } from "pino";
import type { HttpLogger } from "../httpLogger.js";

export type LogFormat = "json" | "text";

/** Field names whose values must never be logged, whatever a caller passes (defence in depth). */
const REDACTED_KEYS = ["authorization", "cookie", "password", "token", "secret", "value", "text", "body"];

/**
 * The service log: one line per event through pino, as JSON (for a log pipeline) or as text
 * ("2026-12-01T10:00:00.000Z info request method=GET path=/healthz status=200 ms=1"). Lines go to
 * `write` (the CLI sends them to stderr through its scrubber). Callers pass only ids, names,
 * statuses, counts and durations; the keys in REDACTED_KEYS are censored anyway.
 */
export function createPinoLogger(options: { format: LogFormat; write: (line: string) => void; level?: string }): HttpLogger {
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
      redact: { paths: REDACTED_KEYS.map((k) => `*.${k}`).concat(REDACTED_KEYS), censor: "[REDACTED]" },
    },
    destination,
  );
  return {
    info: (message, fields) => logger.info(fields ?? {}, message),
    warn: (message, fields) => logger.warn(fields ?? {}, message),
    error: (message, error) => logger.error({ err: error instanceof Error ? { message: error.message, stack: error.stack ?? "" } : { message: String(error) } }, message),
  };
}

function toText(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.replace(/\n$/, "");
  }
  const { time, level, msg, err, ...fields } = record;
  const extra = Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join("");
  const failure = typeof err === "object" && err !== null ? `: ${String((err as { stack?: string; message?: string }).stack || (err as { message?: string }).message)}` : "";
  return `${String(time)} ${String(level)} ${String(msg)}${extra}${failure}`;
}

/** ERRAND_LOG_FORMAT: "json" or "text" (the default); anything else is refused by the caller. */
export function parseLogFormat(raw: string | undefined): LogFormat | undefined {
  if (raw === undefined || raw === "") return "text";
  return raw === "json" || raw === "text" ? raw : undefined;
}
