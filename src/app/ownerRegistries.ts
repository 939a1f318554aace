import type { OwnerFileRegistry } from "../files/createOwnerFiles.js";
import { createOwnerFiles } from "../files/createOwnerFiles.js";
import { createSecretHasher } from "../interfaces/http/secretHasher.js";
import type { SecretHasher } from "../interfaces/http/secretHasher.js";
import { deriveSubkey } from "../keys/loadKey.js";
import { createSealedBox } from "../keys/sealedBox.js";
import type { SecretRegistry } from "../secrets/createSecretRegistry.js";
import { createSecretRegistry } from "../secrets/createSecretRegistry.js";
import type { SiteRegistry } from "../sites/createSiteRegistry.js";
import { createSiteRegistry } from "../sites/createSiteRegistry.js";
import type { AccessStore } from "../store/AccessStore.js";
import type { FileStore } from "../store/FileStore.js";
import type { SecretStore } from "../store/SecretStore.js";
import type { SiteStore } from "../store/SiteStore.js";

export interface OpenedSecrets {
  registry: SecretRegistry;
  close(): Promise<void>;
}
export interface OpenedSites {
  registry: SiteRegistry;
  close(): Promise<void>;
}
export interface OpenedFiles {
  registry: OwnerFileRegistry;
  close(): Promise<void>;
}
export interface OpenedAccess {
  access: AccessStore;
  hasher: SecretHasher;
}

/**
 * The owner's registries over their stores, each under its own subkey of the master key, so a value
 * sealed for one purpose never opens under another. Every way errand opens a registry (the
 * composition root, an owner command) goes through these.
 */

/** Declared secrets, sealed under "secrets"; --from-env sources are read from `env` only by the name the owner declared. */
export function secretsOn(store: SecretStore, key: Buffer, env: NodeJS.ProcessEnv, errandHome: string): OpenedSecrets {
  return { registry: createSecretRegistry({ store, box: createSealedBox(deriveSubkey(key, "secrets")), env, errandHome }), close: () => store.close() };
}

/** Sites and their sessions, sealed under "sites"; the login pages it names start with ERRAND_PUBLIC_URL (where errand is reached). */
export function sitesOn(store: SiteStore, key: Buffer, env: NodeJS.ProcessEnv): OpenedSites {
  const publicUrl = (env["ERRAND_PUBLIC_URL"] ?? "").trim();
  const registry = createSiteRegistry({ store, box: createSealedBox(deriveSubkey(key, "sites")), publicUrl: publicUrl === "" ? null : publicUrl });
  return { registry, close: () => store.close() };
}

/** Upload files, sealed under "owner-files". */
export function filesOn(store: FileStore, key: Buffer): OpenedFiles {
  return { registry: createOwnerFiles(store, createSealedBox(deriveSubkey(key, "owner-files"))), close: () => store.close() };
}

/** The access tables with the hasher of their tokens and passwords ("http-secrets"). */
export function accessOn(access: AccessStore, key: Buffer): OpenedAccess {
  return { access, hasher: createSecretHasher(deriveSubkey(key, "http-secrets")) };
}
