import type { OAuthTokenRecord } from "./AccessStore.js";

/**
 * Whether a spent refresh token presented again is a client retrying the exchange it already made
 * (its answer was lost), not a copy in someone else's hands: it was spent at most `graceMs` ago, and
 * `successor` (the pair the caller derived from the presented token) is exactly the refresh token
 * that exchange created, still unused, in the same live family. Anything else is reuse and revokes
 * the family. Both stores decide with this one rule.
 */
export function isRetriedRefresh(spent: OAuthTokenRecord, successor: OAuthTokenRecord | undefined, graceMs: number, nowMs: number): boolean {
  if (spent.usedMs === null || nowMs - spent.usedMs > graceMs) return false;
  return (
    successor !== undefined &&
    successor.kind === "refresh" &&
    successor.familyId === spent.familyId &&
    successor.generation === spent.generation + 1 &&
    successor.usedMs === null &&
    successor.revokedMs === null
  );
}
