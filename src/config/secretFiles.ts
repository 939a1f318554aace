import { readFileSync } from "node:fs";
import { ConfigError } from "./runtimeConfig.js";

/**
 * Variables that carry a secret. Each may instead be given as NAME_FILE, the path of a file holding
 * the value (Docker and systemd credentials, Kubernetes secrets), so the secret need not sit in the
 * environment of every process that can read it.
 */
export const SECRET_VARIABLES: readonly string[] = [
  "ERRAND_OWNER_PASSWORD",
  // A database URL may carry a password.
  "ERRAND_DATABASE_URL",
  "BROWSERBASE_API_KEY",
  "STEEL_API_KEY",
  "KERNEL_API_KEY",
  "BROWSERLESS_TOKEN",
];

/** A secret file larger than this is a mistake (a wrong path), not a secret. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * Returns a copy of `env` where every NAME_FILE of a secret variable has been read into NAME (one
 * trailing newline dropped, as `echo` and editors add it). Setting both NAME and NAME_FILE, an
 * unreadable file or an empty one is a configuration error: silently preferring one would hide
 * which secret is in use. Throws ConfigError naming every such problem at once.
 */
export function resolveSecretFiles(env: NodeJS.ProcessEnv, names: readonly string[] = SECRET_VARIABLES): NodeJS.ProcessEnv {
  const resolved: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  for (const name of names) {
    const file = env[`${name}_FILE`];
    if (file === undefined || file === "") continue;
    if (env[name] !== undefined && env[name] !== "") {
      problems.push(`${name} and ${name}_FILE are both set; keep one.`);
      continue;
    }
    let text: string;
    try {
      const bytes = readFileSync(file);
      if (bytes.length > MAX_SECRET_FILE_BYTES) {
        problems.push(`${name}_FILE names a file over ${MAX_SECRET_FILE_BYTES} bytes (${file}); it should hold only the secret.`);
        continue;
      }
      text = bytes.toString("utf8").replace(/\r?\n$/, "");
    } catch (error) {
      const code = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
      problems.push(`${name}_FILE names a file errand cannot read (${file}: ${code}).`);
      continue;
    }
    if (text === "") {
      problems.push(`${name}_FILE names an empty file (${file}).`);
      continue;
    }
    resolved[name] = text;
  }
  if (problems.length > 0) throw new ConfigError(problems.join(" "));
  return resolved;
}
