import { createHash, timingSafeEqual } from "node:crypto";
import { randomId } from "../secretHasher.js";

/** A logged-in owner console session. */
export interface OwnerSession {
  /** Synchronizer token every form of this session carries. */
  csrf: string;
  address: string;
  createdMs: number;
  lastSeenMs: number;
}

export interface OwnerSessionPolicy {
  /** A session unused this long is over (ms). */
  idleMs: number;
  /** A session ends this long after login whatever its use (ms). */
  maxMs: number;
}

const MAX_SESSIONS = 20;

function keyOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Owner console sessions, in memory only (a restart logs the owner out, nothing more). The cookie
 * holds a random 192-bit token; only its SHA-256 is kept, so a heap dump does not hand out a
 * session. States: LIVE ──idle past idleMs, older than maxMs, or logout──> GONE.
 */
export class OwnerSessions {
  private readonly sessions = new Map<string, OwnerSession>();

  constructor(
    private readonly policy: OwnerSessionPolicy,
    private readonly clock: () => number,
  ) {}

  create(address: string): { token: string; session: OwnerSession } {
    const now = this.clock();
    for (const [key, session] of this.sessions) if (this.expired(session, now)) this.sessions.delete(key);
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as string);
    const token = randomId(24);
    const session: OwnerSession = { csrf: randomId(24), address, createdMs: now, lastSeenMs: now };
    this.sessions.set(keyOf(token), session);
    return { token, session };
  }

  /** The live session of this cookie value (its idle clock restarts), or undefined. */
  touch(token: string | undefined): OwnerSession | undefined {
    if (token === undefined || token.length === 0 || token.length > 128) return undefined;
    const key = keyOf(token);
    const session = this.sessions.get(key);
    if (session === undefined) return undefined;
    const now = this.clock();
    if (this.expired(session, now)) {
      this.sessions.delete(key);
      return undefined;
    }
    session.lastSeenMs = now;
    return session;
  }

  end(token: string | undefined): void {
    if (token !== undefined) this.sessions.delete(keyOf(token));
  }

  private expired(session: OwnerSession, now: number): boolean {
    return now - session.lastSeenMs >= this.policy.idleMs || now - session.createdMs >= this.policy.maxMs;
  }
}

/** Constant-time comparison of two CSRF tokens. */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}
