/**
 * The name of a secret the owner declared with `errand secret set`. Tasks refer to secrets only by
 * this name (fill_secret's "secret", or its other spelling "envVar"); the value never enters a task.
 * Names are case-sensitive: "portal" and "PORTAL" are two secrets.
 */
export const SECRET_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}
