import { randomId } from "../secretHasher.js";

/** An authorization request waiting for the owner's answer on the consent page. */
export interface PendingConsent {
  id: string;
  /** Double-submit token: in the form and in a cookie set with the page. */
  csrf: string;
  clientId: string;
  clientName: string;
  /** For a metadata-document client, the host its document was fetched from: the only part of its identity errand verified. */
  verifiedHost: string | undefined;
  redirectUri: string;
  codeChallenge: string;
  state: string | undefined;
  scopes: string[];
  resource: string;
  expiresMs: number;
  /** Which owner password was in force when the page opened (ownerSecretMark), to say so when it changed since; never sent. */
  secretMark: string | undefined;
}

/** Pending consents one client address may hold; its own oldest makes room for its newest. */
export const MAX_PENDING_PER_ADDRESS = 5;
/** Pending consents in all; when full, new requests are refused (nobody else's is pushed out). */
export const MAX_PENDING = 1000;

/**
 * Pending consents live in memory only: they last minutes, and a restart merely means the owner
 * starts the connection again from ChatGPT. Each id answers once. They are capped per client
 * address, so a stranger's flood of /authorize requests only ever replaces the stranger's own.
 */
export class PendingConsents {
  private readonly pending = new Map<string, PendingConsent & { address: string }>();

  constructor(private readonly clock: () => number) {}

  /** A new pending consent for this address, or undefined when every slot is taken by live ones. */
  create(address: string, fields: Omit<PendingConsent, "id" | "csrf">): PendingConsent | undefined {
    this.prune();
    const own = [...this.pending.values()].filter((consent) => consent.address === address);
    if (own.length >= MAX_PENDING_PER_ADDRESS) this.pending.delete(own[0]?.id ?? "");
    if (this.pending.size >= MAX_PENDING) return undefined;
    const consent = { ...fields, id: randomId(24), csrf: randomId(24), address };
    this.pending.set(consent.id, consent);
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
