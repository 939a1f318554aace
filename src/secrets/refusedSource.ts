import { realpathSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { CLOUD_PROVIDER_NAMES } from "../providers/providerNames.js";

/**
 * Sources a secret may never be read from. Variables that configure errand itself (ERRAND_*,
 * including the owner password) and every provider's variables (their API keys and endpoints)
 * are refused, compared without regard to case; so are files inside ERRAND_HOME (the master key,
 * the database). The owner types these names, but a mistake here would hand errand's own keys to
 * a web page, so the rule holds for everyone and is checked again whenever a value is read.
 */
export function refusedVariableReason(variable: string): string | null {
  const upper = variable.toUpperCase();
  if (upper.startsWith("ERRAND_")) return `${variable} configures errand itself; errand never types its own settings (the owner password, keys) into a page`;
  for (const provider of CLOUD_PROVIDER_NAMES) {
    const prefix = `${provider.toUpperCase()}_`;
    if (upper.startsWith(prefix)) return `${variable} belongs to the ${provider} provider (${prefix}*); provider credentials are never typed into a page`;
  }
  return null;
}

/** Refuses a file inside ERRAND_HOME (after resolving symbolic links, where the file exists). */
export function refusedFileReason(path: string, errandHome: string): string | null {
  const home = canonical(resolve(errandHome));
  const file = canonical(resolve(path));
  const inside = relative(home, file);
  if (inside === "" || (!inside.startsWith("..") && !isAbsolute(inside)))
    return `${path} is inside ERRAND_HOME (${errandHome}), where errand keeps its own keys and database`;
  return null;
}

function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
