// A site the owner has defined and logged in to, as the owner console leaves it: admission refuses a
// site task whose site has no saved session, so tests about what comes after admission (grants,
// approval) start from here. The session is a placeholder cookie on the site's host. Not a test file.
import type { SiteRegistry } from "../../../src/sites/createSiteRegistry.js";

export async function defineLoggedInSite(registry: SiteRegistry, name: string, origin: string): Promise<void> {
  await registry.define({ name, origins: [origin] });
  const definition = await registry.lookup(name);
  if (definition === null) throw new Error(`the site ${name} was not defined`);
  const host = new URL(origin).hostname;
  await registry.saveSession(
    definition,
    {
      cookies: [{ name: "sid", value: `test-session-${name}`, domain: host, path: "/", expires: -1, httpOnly: true, secure: true, sameSite: "Lax" }],
      origins: [],
    },
    "saved",
  );
}
