import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { SealedBox } from "../keys/sealedBox.js";
import { SealedBoxError } from "../keys/sealedBox.js";
import { secretAssociatedData as aad } from "./secretSealing.js";
import type { SecretRecord, SecretSourceKind, SecretStore } from "../store/SecretStore.js";
import { isSecretName } from "../task/secretName.js";
import { refusedFileReason, refusedVariableReason } from "./refusedSource.js";
import { normalizeSecretSites } from "./secretSite.js";
import type { DeclaredSecret, SecretKind, SecretSourceInput, SecretSummary, SecretVault } from "./secretTypes.js";
import { isTotpSeed, parseTotpSeed, totpCode, TotpSeedError } from "./totpSeed.js";
import type { TotpSeed } from "./totpSeed.js";
import { SecretError } from "./secretTypes.js";
import { dropOneTrailingNewline, secretValueProblem } from "./secretValueRule.js";

/** Files larger than this are not secrets (and are not read whole into memory). */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

export interface SecretRegistryOptions {
  store: SecretStore;
  /** A box under the master key's "secrets" subkey (deriveSubkey(master, "secrets")). */
  box: SealedBox;
  /** Where --from-env sources are read, at use. Only names the owner declared are ever looked up. */
  env: NodeJS.ProcessEnv;
  /** ERRAND_HOME: files inside it are refused as sources. */
  errandHome: string;
}

export interface SecretRegistry extends SecretVault {
  /** Declares (or replaces) a secret; validates name, sites, source and, where it can be read now, the value. */
  set(name: string, sites: readonly string[], source: SecretSourceInput): Promise<{ created: boolean; secret: SecretSummary; sourceReadable: boolean }>;
  list(): Promise<SecretSummary[]>;
  delete(name: string): Promise<boolean>;
}

/**
 * A record's sealed payload. A TOTP seed is kept in a "stored" record (its source is errand itself);
 * its kind is inside the sealed payload, so it cannot be changed without the key.
 */
type Payload = { kind: "stored"; value: string } | { kind: "env"; variable: string } | { kind: "file"; path: string } | { kind: "totp"; seed: TotpSeed };
type ValuePayload = Exclude<Payload, { kind: "totp" }>;

const sourceKindOf = (payload: Payload): SecretSourceKind => (payload.kind === "totp" ? "stored" : payload.kind);

/**
 * The owner's secret registry. Each record's payload (the value, where to read it, or a TOTP seed) is sealed
 * with AES-256-GCM; the associated data is the canonical JSON of the purpose, name, sites and
 * source kind, so a row whose sites were widened in the database, or whose ciphertext was copied
 * to another name, fails to open (secret_unreadable) instead of being typed somewhere new.
 */
export function createSecretRegistry(options: SecretRegistryOptions): SecretRegistry {
  const { store, box } = options;
  const openPayload = (record: SecretRecord): Payload => {
    // The row's MAC covers its name, sites, source kind and sealed payload; the box's associated data
    // binds the payload to the same fields. Either failing means the row was written without the key.
    if (!record.authentic)
      throw new SecretError(
        "secret_unreadable",
        `The declared secret ${record.name} cannot be used: its stored row fails its MAC under the master key (it was changed without the key). Declare it again with errand secret set.`,
      );
    let payload: unknown;
    try {
      payload = JSON.parse(box.open(record.sealed, aad(record.name, record.sites, record.sourceKind)).toString("utf8"));
    } catch (error) {
      const reason = error instanceof SealedBoxError ? error.reason : "malformed";
      throw new SecretError(
        "secret_unreadable",
        `The declared secret ${record.name} cannot be opened (${reason}): it was stored under another master key, or its row was modified. Declare it again with errand secret set.`,
      );
    }
    if (!isPayload(payload) || sourceKindOf(payload) !== record.sourceKind)
      throw new SecretError("secret_unreadable", `The declared secret ${record.name} has a malformed record; declare it again with errand secret set.`);
    return payload;
  };

  const readSource = (name: string, payload: ValuePayload): string => {
    switch (payload.kind) {
      case "stored":
        return payload.value;
      case "env": {
        const refused = refusedVariableReason(payload.variable);
        if (refused !== null) throw new SecretError("secret_source_refused", `The declared secret ${name} cannot be read: ${refused}.`);
        const value = options.env[payload.variable];
        if (value === undefined || value === "")
          throw new SecretError(
            "secret_missing",
            `The declared secret ${name} reads the environment variable ${payload.variable}, which is not set for this errand process.`,
          );
        return value;
      }
      case "file": {
        const refused = refusedFileReason(payload.path, options.errandHome);
        if (refused !== null) throw new SecretError("secret_source_refused", `The declared secret ${name} cannot be read: ${refused}.`);
        let text: string;
        try {
          if (statSync(payload.path).size > MAX_SECRET_FILE_BYTES) throw new Error("too large");
          text = readFileSync(payload.path, "utf8");
        } catch {
          throw new SecretError(
            "secret_missing",
            `The declared secret ${name} reads the file ${payload.path}, which cannot be read (missing, unreadable or over ${MAX_SECRET_FILE_BYTES} bytes).`,
          );
        }
        const value = dropOneTrailingNewline(text);
        if (value === "") throw new SecretError("secret_missing", `The declared secret ${name} reads the file ${payload.path}, which is empty.`);
        return value;
      }
    }
  };

  const checkedValue = (name: string, value: string): string => {
    const problem = secretValueProblem(value);
    if (problem !== null) throw new SecretError("secret_value_refused", `The declared secret ${name} cannot be used: ${problem}.`);
    return value;
  };

  const requireName = (name: string): void => {
    if (!isSecretName(name))
      throw new SecretError(
        "invalid_secret_name",
        `"${name.slice(0, 70)}" is not a secret name: start with a letter, then letters, digits or "_", at most 64 characters.`,
      );
  };

  /** A stored record may hold a TOTP seed; a record that does not open is listed by its column (its use reports it). */
  const kindOf = (record: SecretRecord): SecretKind => {
    if (record.sourceKind !== "stored") return record.sourceKind;
    try {
      return openPayload(record).kind === "totp" ? "totp" : "stored";
    } catch {
      return "stored";
    }
  };

  return {
    async set(name, rawSites, source) {
      requireName(name);
      const sites = normalizeSecretSites(rawSites, "/sites");
      if (!sites.ok) throw new SecretError("invalid_secret_site", sites.errors.map((e) => e.message).join(" "));
      let payload: Payload;
      let sourceReadable = true;
      switch (source.kind) {
        case "stored":
          payload = { kind: "stored", value: checkedValue(name, source.value) };
          break;
        case "env": {
          const refused = refusedVariableReason(source.variable);
          if (refused !== null) throw new SecretError("secret_source_refused", `--from-env ${source.variable} is refused: ${refused}.`);
          if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(source.variable))
            throw new SecretError("secret_source_refused", `--from-env needs an environment variable name (letters, digits and "_").`);
          payload = { kind: "env", variable: source.variable };
          break;
        }
        case "file": {
          const path = resolve(source.path);
          const refused = refusedFileReason(path, options.errandHome);
          if (refused !== null) throw new SecretError("secret_source_refused", `--from-file is refused: ${refused}.`);
          payload = { kind: "file", path };
          break;
        }
        case "totp":
          try {
            payload = { kind: "totp", seed: parseTotpSeed(source.seed) };
          } catch (error) {
            if (error instanceof TotpSeedError) throw new SecretError("invalid_totp_seed", `The TOTP seed for ${name} is refused: ${error.message}.`);
            throw error;
          }
          break;
      }
      if (payload.kind === "env" || payload.kind === "file") {
        try {
          checkedValue(name, readSource(name, payload));
        } catch (error) {
          // The value may be provided later (another shell, a file written at deploy time); a bad one is refused now.
          if (!(error instanceof SecretError) || error.code !== "secret_missing") throw error;
          sourceReadable = false;
        }
      }
      const sourceKind = sourceKindOf(payload);
      const sealed = box.seal(JSON.stringify(payload), aad(name, sites.value, sourceKind));
      const { created, record } = await store.putSecret({ name, sites: sites.value, sourceKind, sealed });
      return { created, secret: summarize(record, payload.kind === "totp" ? "totp" : sourceKind), sourceReadable };
    },

    async list() {
      return (await store.listSecrets()).map((record) => summarize(record, kindOf(record)));
    },

    delete(name) {
      requireName(name);
      return store.deleteSecret(name);
    },

    async lookup(name): Promise<DeclaredSecret | null> {
      if (!isSecretName(name)) return null;
      const record = await store.readSecret(name);
      if (record === null) return null;
      // Opening authenticates the sites: a row edited in the database is not believed.
      openPayload(record);
      return { name: record.name, sites: [...record.sites] };
    },

    async reveal(name) {
      const record = isSecretName(name) ? await store.readSecret(name) : null;
      if (record === null)
        throw new SecretError(
          "secret_unknown",
          `No secret named ${name.slice(0, 64)} is declared; the owner declares it with: errand secret set ${name.slice(0, 64)} --site https://...`,
        );
      const payload = openPayload(record);
      if (payload.kind === "totp") {
        // The seed stays here: the attempt gets only a way to ask for the code of the moment.
        const seed = payload.seed;
        return { name: record.name, sites: [...record.sites], code: (nowMs: number) => totpCode(seed, nowMs) };
      }
      const value = checkedValue(name, readSource(name, payload));
      return { name: record.name, sites: [...record.sites], value };
    },
  };
}

function summarize(record: SecretRecord, kind: SecretKind): SecretSummary {
  return {
    name: record.name,
    sites: [...record.sites],
    sourceKind: kind,
    createdAt: new Date(record.createdMs).toISOString(),
    updatedAt: new Date(record.updatedMs).toISOString(),
  };
}

function isPayload(value: unknown): value is Payload {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    (v["kind"] === "stored" && typeof v["value"] === "string") ||
    (v["kind"] === "env" && typeof v["variable"] === "string") ||
    (v["kind"] === "file" && typeof v["path"] === "string") ||
    (v["kind"] === "totp" && isTotpSeed(v["seed"]))
  );
}
