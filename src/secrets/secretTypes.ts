import type { ErrorCode } from "../errors/errorCodes.js";
import type { SecretSourceKind } from "../store/SecretStore.js";

/** A secret the owner declared: its name and the sites it may be typed into and sent to. Never its value. */
export interface DeclaredSecret {
  name: string;
  /** Normalized origins (see secretSite.ts), sorted. */
  sites: string[];
}

/**
 * Read-only lookup of declared secrets, for whoever must show or check them without the value
 * (owner approval summaries, the executor's refusal before the browser opens).
 */
export interface SecretCatalog {
  /** The declared secret, or null when the owner never declared that name. */
  lookup(name: string): Promise<DeclaredSecret | null>;
}

/** The executor's view: the catalog plus the value, read at the moment an attempt needs it. */
export interface SecretVault extends SecretCatalog {
  /** The value and its sites; throws SecretError (secret_unknown, secret_missing, secret_unreadable, secret_source_refused, secret_value_refused). */
  reveal(name: string): Promise<DeclaredSecret & { value: string }>;
}

/** What `errand secret list` shows: never a value or any hint of it (not even its length). */
export interface SecretSummary extends DeclaredSecret {
  sourceKind: SecretSourceKind;
  createdAt: string;
  updatedAt: string;
}

/** Where a secret's value comes from: typed into errand (stored encrypted), or read from outside at use. */
export type SecretSourceInput = { kind: "stored"; value: string } | { kind: "env"; variable: string } | { kind: "file"; path: string };

/** A refusal about a secret, with its code; messages never carry a value. */
export class SecretError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
