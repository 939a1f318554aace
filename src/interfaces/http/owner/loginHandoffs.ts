import type { LoginHandoff } from "../../../executor/loginHandoff.js";

/** Opens a live login browser for a site (null: no site by that name). */
export type LoginHandoffOpener = (name: string, budgetMs: number) => Promise<LoginHandoff | null>;

/** At most this many sites have a login browser open at once. */
export const MAX_LIVE_HANDOFFS = 4;

interface Live {
  handoff: LoginHandoff;
  expiresMs: number;
  timer: NodeJS.Timeout;
}

/**
 * The owner console's live login browsers, in memory: one per site (opening another for the same
 * site closes the first), closed on Done, on expiry (ERRAND_LOGIN_TTL, by timer and whenever one
 * is asked for past it) and by closeAll when errand serve stops.
 * States: OPEN ──Done saved, expiry, replaced, Cancel or closeAll──> CLOSED (context released).
 */
export class LoginHandoffs {
  private readonly live = new Map<string, Live>();

  constructor(
    private readonly opener: LoginHandoffOpener,
    readonly ttlMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Opens the site's login browser (closing one already open for it); null when there is no such site. */
  async start(name: string): Promise<{ expiresMs: number } | null | "busy"> {
    await this.finish(name);
    if (this.live.size >= MAX_LIVE_HANDOFFS) return "busy";
    const handoff = await this.opener(name, this.ttlMs);
    if (handoff === null) return null;
    const expiresMs = this.clock() + this.ttlMs;
    const timer = setTimeout(() => void this.finish(name), this.ttlMs);
    timer.unref();
    // A start that raced this one is closed: one browser per site.
    await this.finish(name);
    this.live.set(name, { handoff, expiresMs, timer });
    return { expiresMs };
  }

  /** The site's open login browser, or undefined (none, closed, or past its time: then it is closed now). */
  get(name: string): LoginHandoff | undefined {
    const entry = this.live.get(name);
    if (entry === undefined) return undefined;
    if (entry.handoff.closed || this.clock() >= entry.expiresMs) {
      void this.finish(name);
      return undefined;
    }
    return entry.handoff;
  }

  /** Closes the site's login browser, if one is open. */
  async finish(name: string): Promise<void> {
    const entry = this.live.get(name);
    if (entry === undefined) return;
    this.live.delete(name);
    clearTimeout(entry.timer);
    await entry.handoff.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.live.keys()].map((name) => this.finish(name)));
  }

  get size(): number {
    return this.live.size;
  }
}
