import { createErrand } from "../../app/createErrand.js";
import type { Errand, ErrandOptions } from "../../app/createErrand.js";
import { storeLocationFor } from "../../app/storeLocation.js";
import type { StoreLocation } from "../../app/storeLocation.js";
import { ConfigError } from "../../config/configError.js";
import { resolveRuntimeConfig } from "../../config/runtimeConfig.js";
import { MASTER_KEY_VARIABLE, masterKeyFromEnv } from "../../keys/masterKeyFromEnv.js";
import type { LibsqlClientLike } from "../../store/libsql/LibsqlClientLike.js";

/** What a host with no lasting file system (Deno, Val Town) gives errand: its environment, and its own database client when it has one. */
export interface HostedOptions {
  /** The host's environment (Deno.env.toObject()): settings, provider credentials, the master key. */
  env: Readonly<Record<string, string | undefined>>;
  /** The platform's libSQL client (Val Town's std/sqlite through valTownSqliteClient); absent, ERRAND_DATABASE_URL names the database. */
  libsqlClient?: LibsqlClientLike;
}

/**
 * errand put together on such a host: the master key from ERRAND_MASTER_KEY (never a file) and the
 * state in a libSQL database (the platform's client, or ERRAND_DATABASE_URL), both required, so
 * nothing depends on a disk that may be gone at the next request.
 */
export async function openHostedErrand(options: HostedOptions, extra: Omit<ErrandOptions, "env" | "masterKey" | "location"> = {}): Promise<Errand> {
  const env: NodeJS.ProcessEnv = { ...options.env };
  const masterKey = masterKeyFromEnv(env);
  if (masterKey === null) {
    throw new ConfigError(
      `${MASTER_KEY_VARIABLE} is not set: a host without a lasting file system keeps errand's master key in its environment. Set it to 32 random bytes in base64 (deploy/valtown/README.md says how) and keep a copy apart: without it nothing stored can be read.`,
    );
  }
  return createErrand({ ...extra, env, masterKey, location: hostedLocation(options, env) });
}

function hostedLocation(options: HostedOptions, env: NodeJS.ProcessEnv): StoreLocation {
  if (options.libsqlClient !== undefined) return { backend: "libsql", url: "the platform's database", client: options.libsqlClient };
  const location = storeLocationFor(resolveRuntimeConfig(env), env);
  if (location.backend !== "libsql") {
    throw new ConfigError(
      "ERRAND_DATABASE_URL must name a libSQL database here (file:PATH for a local file, libsql://HOST or https://HOST for a libSQL server): a host without a lasting file system keeps its state in libSQL.",
    );
  }
  return location;
}
