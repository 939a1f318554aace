// An in-memory SecretVault for executor tests (the SQLite registry has its own tests, and the CLI
// tests go through it end to end). Not a test file.
import type { SecretVault } from "../../src/secrets/secretTypes.js";
import { SecretError } from "../../src/secrets/secretTypes.js";

export function memoryVault(secrets: Record<string, { sites: string[]; value: string }> = {}): SecretVault {
  return {
    lookup: (name) => Promise.resolve(Object.hasOwn(secrets, name) ? { name, sites: [...(secrets[name]?.sites ?? [])] } : null),
    reveal: (name) => {
      const secret = Object.hasOwn(secrets, name) ? secrets[name] : undefined;
      if (secret === undefined) return Promise.reject(new SecretError("secret_unknown", `No secret named ${name} is declared.`));
      return Promise.resolve({ name, sites: [...secret.sites], value: secret.value });
    },
  };
}
