import { randomId } from "../secretHasher.js";

/** An authorization request waiting for the owner's answer on the consent page. */
export interface PendingConsent {
  id: string;
  /** Double-submit token: in the form and in a cookie set with the page. */
  csrf: string;
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  scopes: string[];
  resource: string;
  expiresMs: number;
}

const MAX_PENDING = 200;

/**
 * Pending consents live in memory only: they last minutes, and a restart merely means the owner
 * starts the connection again from ChatGPT. Each id answers once; the oldest are dropped when full.
 */
export class PendingConsents {
  private readonly pending = new Map<string, PendingConsent>();

  constructor(private readonly clock: () => number) {}

  create(fields: Omit<PendingConsent, "id" | "csrf">): PendingConsent {
    this.prune();
    const consent: PendingConsent = { ...fields, id: randomId(24), csrf: randomId(24) };
    this.pending.set(consent.id, consent);
    if (this.pending.size > MAX_PENDING) this.pending.delete(this.pending.keys().next().value as string);
    return consent;
  }

  get(id: string): PendingConsent | undefined {
    const consent = this.pending.get(id);
    if (consent === undefined) return undefined;
    if (consent.expiresMs <= this.clock()) {
      this.pending.delete(id);
      return undefined;
    }
    return consent;
  }

  delete(id: string): void {
    this.pending.delete(id);
  }

  private prune(): void {
    const now = this.clock();
    for (const [id, consent] of this.pending) if (consent.expiresMs <= now) this.pending.delete(id);
  }
}
