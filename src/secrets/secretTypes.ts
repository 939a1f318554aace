import type { SecretSourceKind } from "../store/SecretStore.js";
import { ErrandError } from "../errors/errandError.js";

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

/**
 * A secret as an attempt holds it: a fixed value, or for a TOTP secret the code of the moment,
 * computed when it is typed. The TOTP seed itself stays inside the registry.
 */
export type RevealedSecret = DeclaredSecret & ({ value: string; code?: undefined } | { code: (nowMs: number) => string; value?: undefined });

/** The executor's view: the catalog plus the value, read at the moment an attempt needs it. */
export interface SecretVault extends SecretCatalog {
  /** The value (or TOTP code source) and its sites; throws SecretError (secret_unknown, secret_missing, secret_unreadable, secret_source_refused, secret_value_refused). */
  reveal(name: string): Promise<RevealedSecret>;
}

/** What a secret is, as `errand secret list` shows it: where its value comes from, or a TOTP seed. */
export type SecretKind = SecretSourceKind | "totp";

/** What `errand secret list` shows: never a value or any hint of it (not even its length). */
export interface SecretSummary extends DeclaredSecret {
  sourceKind: SecretKind;
  createdAt: string;
  updatedAt: string;
}

/**
 * Where a secret's value comes from: typed into errand (stored encrypted), read from outside at use,
 * or a TOTP seed (an otpauth:// URI or base32 key, stored encrypted) whose current code is typed.
 */
export type SecretSourceInput =
  { kind: "stored"; value: string } | { kind: "env"; variable: string } | { kind: "file"; path: string } | { kind: "totp"; seed: string };

/** A refusal about a secret, with its code; messages never carry a value. */
export class SecretError extends ErrandError {}
