import type { AppDeps } from "./httpDeps.js";
import { ownerSecretMark, verifyOwnerPassword } from "./oauth/ownerPassword.js";
import { afterRightPassword, afterWrongPassword, reserveAttempt, slowdownMs } from "./ownerLockout.js";

export type OwnerAttempt =
  | { kind: "right" }
  /** Wrong: the lock it started, or how many more wrong answers from this address lock it, and for how long; which password it was checked against. */
  | { kind: "wrong"; lockedUntilMs: number | null; attemptsLeft: number; nextLockMs: number; secretMark: string | undefined }
  /** Locked (untilMs), or too many attempts from this address are being checked at once (untilMs null). */
  | { kind: "locked"; untilMs: number | null }
  | { kind: "not_set" };

/**
 * One owner-password attempt from one client address, for the consent page and the owner console
 * alike (one password, one lockout): the attempt is counted before the slow hash is evaluated,
 * nothing is evaluated while the address is locked, a wrong answer is held back, and the right one
 * counts only when no lock began meanwhile.
 */
export async function verifyOwnerAttempt(deps: AppDeps, address: string, password: string): Promise<OwnerAttempt> {
  const policy = deps.settings.lockout;
  const reservation = await deps.access.updateOwnerLockout(address, reserveAttempt(policy));
  if (reservation.kind === "locked") return { kind: "locked", untilMs: reservation.untilMs };
  if (reservation.kind === "busy") return { kind: "locked", untilMs: null };
  const secret = await deps.ownerSecret();
  if (secret === undefined) return { kind: "not_set" };
  if (await verifyOwnerPassword(password, secret)) {
    return (await deps.access.updateOwnerLockout(address, afterRightPassword())) ? { kind: "right" } : { kind: "locked", untilMs: null };
  }
  const outcome = await deps.access.updateOwnerLockout(address, afterWrongPassword(policy));
  deps.logger.warn(outcome.lockedUntilMs === null ? "Wrong owner password" : "Owner password locked for this address after repeated wrong answers", {
    address,
    failures: reservation.failuresSoFar,
  });
  await new Promise((resolve) => setTimeout(resolve, slowdownMs(reservation.failuresSoFar, policy)));
  return { kind: "wrong", ...outcome, secretMark: ownerSecretMark(secret) };
}
