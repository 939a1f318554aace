/**
 * What the HTTP layer reports to the operator (never to a caller): sentences with ids, no secrets.
 * The serve command prints these to stderr; tests collect them.
 */
export interface HttpLogger {
  info(message: string, fields?: Record<string, string | number | boolean | null>): void;
  warn(message: string, fields?: Record<string, string | number | boolean | null>): void;
  /** An unexpected failure; `error` may carry a stack, which stays in the operator's log. */
  error(message: string, error: unknown): void;
}

export const silentLogger: HttpLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
