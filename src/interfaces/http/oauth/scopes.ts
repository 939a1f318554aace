/** "tasks" lets a client use errand's tools; "offline_access" is advertised so ChatGPT asks for refresh tokens. */
export const TASKS_SCOPE = "tasks";
export const SUPPORTED_SCOPES = [TASKS_SCOPE, "offline_access"] as const;

/**
 * The scopes granted for a request: the supported ones it names, always with "tasks". Unknown
 * scopes are dropped rather than refused, so a client adding one (openid, ...) still connects.
 */
export function grantedScopes(requested: string | undefined): string[] {
  const asked = new Set((requested ?? "").split(" ").filter((s) => s !== ""));
  return SUPPORTED_SCOPES.filter((scope) => scope === TASKS_SCOPE || asked.has(scope));
}
