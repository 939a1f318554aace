// Sites a secret is bound to: what is accepted and how it is normalized, what is refused, and how a
// frame or request URL's origin is matched (scheme and port count, wildcards never match the apex).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fc from "fast-check";
import { normalizeSecretSite, normalizeSecretSites, originMatchesSites } from "../../src/secrets/secretSite.js";

const site = (raw: string) => {
  const r = normalizeSecretSite(raw, "/site");
  return r.ok ? r.value : `ERR:${r.errors[0]?.code ?? ""}`;
};

describe("secret sites", () => {
  test("secretSite normalizes exact origins and wildcards", () => {
    assert.equal(site("https://Portal.Example.com"), "https://portal.example.com");
    assert.equal(site("https://portal.example.com/"), "https://portal.example.com");
    assert.equal(site("https://portal.example.com:443"), "https://portal.example.com");
    assert.equal(site("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
    assert.equal(site("http://[::1]:8080"), "http://[::1]:8080");
    assert.equal(site("https://*.Example.com"), "https://*.example.com");
    assert.equal(site("https://bücher.example"), "https://xn--bcher-kva.example");
  });

  test("secretSite refuses paths, queries, userinfo, other schemes and misplaced wildcards", () => {
    for (const raw of [
      "https://portal.example.com/login",
      "https://portal.example.com/?a=1",
      "https://portal.example.com#x",
      "https://user:pw@portal.example.com",
      "ftp://portal.example.com",
      "portal.example.com",
      "https://*.com",
      "https://a.*.example.com",
      "https://*example.com",
      "https://*.127.0.0.1",
      " https://portal.example.com",
      "https://",
      "",
    ]) {
      assert.equal(site(raw), "ERR:invalid_secret_site", raw);
    }
    assert.equal(normalizeSecretSites([], "/s").ok, false);
  });

  test("secretSite matches origins exactly: scheme, host and port; wildcards cover subdomains only", () => {
    const sites = ["https://portal.example.com", "http://127.0.0.1:8080", "https://*.corp.example"];
    assert.ok(originMatchesSites("https://portal.example.com/login?x=1", sites));
    assert.ok(originMatchesSites("https://PORTAL.example.com:443/", sites));
    assert.ok(!originMatchesSites("http://portal.example.com/", sites));
    assert.ok(!originMatchesSites("https://portal.example.com:8443/", sites));
    assert.ok(!originMatchesSites("https://evil-portal.example.com/", sites));
    assert.ok(!originMatchesSites("https://portal.example.com.evil.test/", sites));
    assert.ok(originMatchesSites("http://127.0.0.1:8080/form", sites));
    assert.ok(!originMatchesSites("http://127.0.0.1:8081/form", sites));
    assert.ok(originMatchesSites("https://a.b.corp.example/", sites));
    assert.ok(!originMatchesSites("https://corp.example/", sites));
    assert.ok(!originMatchesSites("https://xcorp.example/", sites));
    for (const opaque of ["about:blank", "about:srcdoc", "data:text/html,<p>x", "javascript:alert(1)", "not a url", ""]) {
      assert.ok(!originMatchesSites(opaque, sites), opaque);
    }
    assert.ok(originMatchesSites("blob:https://portal.example.com/0b2b6a4e-1111-2222-3333-444455556666", sites));
  });

  test("property: a normalized site matches its own origin and is a fixed point", () => {
    const label = fc.stringMatching(/^[a-z][a-z0-9]{0,10}$/);
    fc.assert(
      fc.property(
        fc.constantFrom("http", "https"),
        fc.array(label, { minLength: 2, maxLength: 4 }),
        fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }),
        (scheme, labels, port) => {
          const raw = `${scheme}://${labels.join(".")}${port === undefined ? "" : `:${port}`}`;
          const normalized = normalizeSecretSite(raw, "/s");
          assert.ok(normalized.ok, raw);
          assert.equal(site(normalized.value), normalized.value);
          assert.ok(originMatchesSites(`${raw}/some/path?q=1`, [normalized.value]));
        },
      ),
    );
  });
});
