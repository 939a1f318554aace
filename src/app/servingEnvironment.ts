import type { TrustedProxies } from "../interfaces/http/clientAddress.js";
import { parseTrustedProxies, TrustedProxiesError } from "../interfaces/http/clientAddress.js";
import { hashOwnerPassword, ownerPasswordProblem } from "../interfaces/http/oauth/ownerPassword.js";
import { parseExtraRedirects, parseMcpAllowedOrigins, resolveServeSettings, ServeSettingsError } from "../interfaces/http/serveSettings.js";
import type { AccessStore } from "../store/AccessStore.js";
import { operatorAllowances } from "./operatorNetworkPolicy.js";

/** What a serving entry (errand serve, the Deno and Val Town entries) reads from the environment before errand's HTTP side starts. */
export interface ServingEnvironment {
  /** Exact extra OAuth redirect URIs (ERRAND_OAUTH_EXTRA_REDIRECTS). */
  extraRedirects: string[];
  /** Browser origins besides the public one that may call /mcp (ERRAND_MCP_ALLOWED_ORIGINS). */
  mcpAllowedOrigins: string[];
  /** Proxies whose X-Forwarded-For is believed (ERRAND_TRUSTED_PROXIES). */
  trustedProxies: TrustedProxies;
  /** ERRAND_OWNER_PASSWORD when set (checked against the owner password rules); it wins over the stored one. */
  ownerPassword: string | undefined;
}

export type ServingEnvironmentResult = { ok: true; value: ServingEnvironment } | { ok: false; code: "usage" | "configuration_error"; message: string };

/**
 * Reads and checks every serving setting of the environment in one place, so each entry refuses
 * the same mistakes with the same words: a wrong value is answered with its variable and rule
 * before anything listens.
 */
export function readServingEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  address: { host: string; port: number; publicUrl?: string | undefined },
  allowPrivateFlags: readonly string[] = [],
): ServingEnvironmentResult {
  let extraRedirects: string[];
  let mcpAllowedOrigins: string[];
  let trustedProxies: TrustedProxies;
  try {
    extraRedirects = parseExtraRedirects(env["ERRAND_OAUTH_EXTRA_REDIRECTS"]);
    mcpAllowedOrigins = parseMcpAllowedOrigins(env["ERRAND_MCP_ALLOWED_ORIGINS"]);
    trustedProxies = parseTrustedProxies(env["ERRAND_TRUSTED_PROXIES"]);
    resolveServeSettings({
      host: address.host,
      port: address.port === 0 ? 1 : address.port,
      ...(address.publicUrl === undefined ? {} : { publicUrl: address.publicUrl }),
    });
  } catch (error) {
    if (error instanceof ServeSettingsError || error instanceof TrustedProxiesError) return { ok: false, code: "configuration_error", message: error.message };
    throw error;
  }
  // The executor's network policy reads ERRAND_ALLOW_PRIVATE itself; here both are checked before anything listens.
  const allowances = operatorAllowances(env, allowPrivateFlags);
  if (!allowances.ok) return { ok: false, code: "usage", message: allowances.errors.map((e) => e.message).join("; ") };
  const envPassword = env["ERRAND_OWNER_PASSWORD"];
  const ownerPassword = envPassword === undefined || envPassword === "" ? undefined : envPassword;
  if (ownerPassword !== undefined) {
    const problem = ownerPasswordProblem(ownerPassword);
    if (problem !== null) return { ok: false, code: "configuration_error", message: `ERRAND_OWNER_PASSWORD: ${problem}` };
  }
  return { ok: true, value: { extraRedirects, mcpAllowedOrigins, trustedProxies, ownerPassword } };
}

/**
 * The owner's encoded password, read at every attempt: ERRAND_OWNER_PASSWORD when set (hashed once,
 * here), else the stored one, so "errand owner set-password" takes effect without a restart.
 */
export async function ownerSecretReader(ownerPassword: string | undefined, access: AccessStore): Promise<() => Promise<string | undefined>> {
  const fromEnv = ownerPassword === undefined ? undefined : await hashOwnerPassword(ownerPassword);
  return async () => fromEnv ?? (await access.readOwnerSecret());
}
