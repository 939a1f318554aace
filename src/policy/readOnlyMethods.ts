/**
 * The HTTP methods a read_only task may send: they read, and a server must not change state for them.
 * Exported for program mode, which hands the same list to a program running in the provider's browser.
 */
export const READ_ONLY_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * True when a read_only task may send a request with this method (any case). The single rule every
 * layer applies: the in-browser route guard, the DevTools write interceptors and the egress proxy.
 */
export function isReadOnlyMethod(method: string): boolean {
  return READ_ONLY_METHODS.has(method.toUpperCase());
}
