/**
 * "tasks" lets a client use errand's tools; "offline_access" is an authorization-server scope (it
 * asks for refresh tokens), listed in the authorization-server metadata only: the resource's
 * metadata and its 401 challenge name what the resource needs, which is "tasks".
 */
export const TASKS_SCOPE = "tasks";
export const SUPPORTED_SCOPES = [TASKS_SCOPE, "offline_access"] as const;
export const RESOURCE_SCOPES = [TASKS_SCOPE] as const;

/**
 * The scopes granted for a request: the supported ones it names, always with "tasks". Unknown
 * scopes are dropped rather than refused, so a client adding one (openid, ...) still connects.
 */
export function grantedScopes(requested: string | undefined): string[] {
  const asked = new Set((requested ?? "").split(" ").filter((s) => s !== ""));
  return SUPPORTED_SCOPES.filter((scope) => scope === TASKS_SCOPE || asked.has(scope));
}
