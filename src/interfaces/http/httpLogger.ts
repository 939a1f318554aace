/**
 * What the HTTP layer reports to the operator (never to a caller): sentences with ids, no secrets.
 * The serve command prints these to stderr; tests collect them.
 */
export interface HttpLogger {
  /** Routine detail an operator turns on with ERRAND_LOG_LEVEL=debug (probe and scrape requests). */
  debug(message: string, fields?: Record<string, string | number | boolean | null>): void;
  info(message: string, fields?: Record<string, string | number | boolean | null>): void;
  warn(message: string, fields?: Record<string, string | number | boolean | null>): void;
  /** An unexpected failure; repeats of one kind may be left out for a while (the logger says how many). */
  error(message: string, error: unknown): void;
}

export const silentLogger: HttpLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
