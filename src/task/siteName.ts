/**
 * The name of a site the owner set up with `errand site add`. Tasks name a site by it ("site"), and
 * it is a path segment of the owner console's login page, so it is kept to URL-safe characters.
 * Names are case-sensitive.
 */
export const SITE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

export function isSiteName(name: string): boolean {
  return SITE_NAME.test(name);
}
