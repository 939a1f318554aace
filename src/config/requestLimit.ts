import { ConfigError } from "./configError.js";
import { parseDuration } from "./parseDuration.js";
import { DAY, SECOND } from "./units.js";

/** Bounds of ERRAND_REQUEST_LIMIT. */
export const REQUEST_LIMIT_BOUNDS = { min: 1 * SECOND, max: 1 * DAY } as const;

/**
 * How long the platform lets the work one HTTP request started run, counted from its arrival (ms),
 * or null when nothing cuts it (errand serve, the default). Set on a fetch-handler runtime (Deno
 * Deploy, Val Town) with no worker pool: errand_run then starts a task within the request only when
 * its longest possible attempt fits what is left of this limit and queues it otherwise, and an
 * in-process queue run claims only what fits (core/decideRequestFit; the HTTP queue driver takes it).
 * Env ERRAND_REQUEST_LIMIT: a duration written as a number and one unit (60s, 15m), 1s-1d; unset or
 * empty means no limit. Anything else throws ConfigError: a typo must not silently lift the limit.
 */
export function resolveRequestLimit(env: Readonly<Record<string, string | undefined>>): number | null {
  const raw = env["ERRAND_REQUEST_LIMIT"];
  if (raw === undefined || raw === "") return null;
  const ms = parseDuration(raw);
  if (ms === undefined || ms < REQUEST_LIMIT_BOUNDS.min || ms > REQUEST_LIMIT_BOUNDS.max) {
    throw new ConfigError(
      `ERRAND_REQUEST_LIMIT="${raw.slice(0, 40)}" is not usable: give how long the platform lets one request run, from 1s to 1d, as a number and one unit (60s, 15m); unset it where nothing cuts a request.`,
    );
  }
  return ms;
}
