import type { SecretVault } from "./secretTypes.js";
import { SecretError } from "./secretTypes.js";

/** A vault with no declared secrets (benchmarks, tools that never type one): every name is secret_unknown. */
export function emptySecretVault(): SecretVault {
  return {
    lookup: () => Promise.resolve(null),
    reveal: (name) => Promise.reject(new SecretError("secret_unknown", `No secret named ${name.slice(0, 64)} is declared.`)),
  };
}
