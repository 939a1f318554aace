/**
 * Where the owner's declared secrets are kept: one row per name with its bound sites, the kind of
 * source and a sealed payload (AES-256-GCM under the master key's "secrets" subkey, sealed and
 * opened in src/secrets, never here). The store sees only ciphertext; every change appends a
 * `secret_changed` journal event (name, sites, source kind, never a value) in its transaction.
 */
export interface SecretStore {
  putSecret(record: NewSecretRecord): Promise<{ created: boolean; record: SecretRecord }>;
  readSecret(name: string): Promise<SecretRecord | null>;
  listSecrets(): Promise<SecretRecord[]>;
  /** True when a secret of that name existed and is now gone. */
  deleteSecret(name: string): Promise<boolean>;
  close(): Promise<void>;
}

export type SecretSourceKind = "stored" | "env" | "file";

export interface NewSecretRecord {
  name: string;
  /** Normalized, sorted sites (see src/secrets/secretSite.ts). */
  sites: string[];
  sourceKind: SecretSourceKind;
  /** Sealed payload: the value (stored) or the variable name / file path (env, file). */
  sealed: string;
}

export interface SecretRecord extends NewSecretRecord {
  createdMs: number;
  updatedMs: number;
  /** False when the row fails its MAC under the master key (written without the key): it is never typed. */
  authentic: boolean;
}
