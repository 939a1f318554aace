import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { AuthenticationError, InternalServerError, RateLimitError, APIConnectionTimeoutError, APIConnectionError } from "@onkernel/sdk";
import { RateLimitError as SteelRateLimit, PermissionDeniedError as SteelForbidden } from "steel-sdk";
import { BadRequestError as BrowserbaseBadRequest, NotFoundError as BrowserbaseNotFound } from "@browserbasehq/sdk";
import { parseRetryAfter } from "../../src/providers/parseRetryAfter.js";
import { providerErrorFrom } from "../../src/providers/providerErrorFrom.js";
import type { FailureContext } from "../../src/providers/providerErrorFrom.js";
import { SCRUBBED, scrubSecrets } from "../../src/providers/scrubSecrets.js";

const KEY = "sk_live_0123456789abcdef";
const CDP = "wss://browsers.example.test/browser/cdp?jwt=eyJhbGciOi.secret-part.sig&session=abc";
const context: FailureContext = {
  provider: "Kernel",
  action: "creating a browser session",
  credentialEnv: "KERNEL_API_KEY",
  secrets: [KEY, CDP],
  timeoutMs: 1_500,
};

describe("providerErrorFrom: the closed set of provider failures", () => {
  it("maps the SDKs' HTTP errors by status: 401/403 auth, 429 capacity with Retry-After, 400/404 configuration, 5xx unavailable", () => {
    const auth = providerErrorFrom(new AuthenticationError(401, { code: "unauthorized", message: "bad key" }, undefined, new Headers()), context);
    assert.equal(auth.code, "provider_auth_failed");
    assert.match(auth.message, /HTTP 401\).*KERNEL_API_KEY/);
    // The provider's words (which can quote anything, a page included) are kept apart from errand's message.
    assert.ok(!auth.message.includes("bad key"), auth.message);
    assert.match(auth.quoted ?? "", /bad key \(unauthorized\)/);

    const forbidden = providerErrorFrom(new SteelForbidden(403, { message: "spending cap reached" }, undefined, {}), { ...context, provider: "Steel" });
    assert.equal(forbidden.code, "provider_auth_failed");
    const busy = providerErrorFrom(new SteelForbidden(403, { message: "max concurrent sessions reached" }, undefined, {}), context);
    assert.equal(busy.code, "provider_capacity", "a 403 that speaks of concurrency is capacity, not auth");

    const limited = providerErrorFrom(new RateLimitError(429, { message: "slow down" }, undefined, new Headers({ "retry-after": "12" })), context);
    assert.equal(limited.code, "provider_capacity");
    assert.equal(limited.retryAfterSeconds, 12);
    assert.equal(limited.status, 429);
    const noHeader = providerErrorFrom(new SteelRateLimit(429, undefined, undefined, {}), context);
    assert.equal(noHeader.retryAfterSeconds, undefined);

    assert.equal(providerErrorFrom(new BrowserbaseBadRequest(400, { message: "bad timeout" }, undefined, {}), context).code, "configuration_error");
    assert.equal(providerErrorFrom(new BrowserbaseNotFound(404, { message: "Project not found" }, undefined, {}), context).code, "configuration_error");
    const down = providerErrorFrom(new InternalServerError(503, { message: "maintenance" }, undefined, new Headers()), context);
    assert.equal(down.code, "provider_unavailable");
    assert.equal(down.status, 503);
  });

  it("maps timeouts and connection failures to provider_unavailable, naming the time allowed", () => {
    const slow = providerErrorFrom(new APIConnectionTimeoutError(), context);
    assert.equal(slow.code, "provider_unavailable");
    assert.match(slow.message, /within 1500 ms/);
    assert.equal(providerErrorFrom(new APIConnectionError({ message: "ECONNREFUSED" }), context).code, "provider_unavailable");
  });

  it("reads the status of a refused CDP WebSocket upgrade from Playwright's message", () => {
    const playwright = (status: string, body: string) =>
      new Error(`browserType.connectOverCDP: WebSocket error: ${CDP} ${status}\n${body}\nCall log:\n  - <ws connecting> ${CDP}`);
    assert.equal(providerErrorFrom(playwright("401 Unauthorized", "Bad or missing authentication."), context).code, "provider_auth_failed");
    assert.equal(providerErrorFrom(playwright("429 Too Many Requests", "Too many requests"), context).code, "provider_capacity");
    assert.equal(providerErrorFrom(playwright("500 Internal Server Error", "oops"), context).code, "provider_unavailable");
    const timeout = Object.assign(new Error("browserType.connectOverCDP: Timeout 3000ms exceeded."), { name: "TimeoutError" });
    assert.equal(providerErrorFrom(timeout, context).code, "provider_unavailable");
  });

  it("never lets the credential or the CDP URL (or any part of its query) into a message or the quoted words", () => {
    const leaky = [
      new AuthenticationError(401, { message: `key ${KEY} is revoked` }, undefined, new Headers()),
      new Error(`browserType.connectOverCDP: WebSocket error: ${CDP} 401 Unauthorized\nBad token eyJhbGciOi.secret-part.sig`),
      new Error(`connect ECONNREFUSED for ${encodeURIComponent(CDP)}`),
      new Error(`something about eyJhbGciOi.secret-part.sig and ${encodeURIComponent(KEY)}`),
    ];
    for (const error of leaky) {
      const { message, quoted } = providerErrorFrom(error, context);
      for (const text of [message, quoted ?? ""]) {
        for (const secret of [KEY, "eyJhbGciOi.secret-part.sig", "browser/cdp", encodeURIComponent(KEY)]) assert.ok(!text.includes(secret), text);
      }
    }
  });
});

describe("scrubSecrets", () => {
  it("removes every WebSocket URL whole, and each secret as written or percent-encoded", () => {
    assert.equal(scrubSecrets(`x ${CDP} y`, []), `x ${SCRUBBED} y`);
    assert.equal(scrubSecrets(`k=${encodeURIComponent("a b/c+d")}`, ["a b/c+d"]), `k=${SCRUBBED}`);
    assert.equal(scrubSecrets("short key abc stays", ["abc"]), "short key abc stays", "secrets under 4 characters would shred prose");
  });

  it("leaves no registered secret in any text (property)", () => {
    const secretChars = fc.constantFrom(..."0123456789abcdefABCDEF+/=&%?");
    const proseChars = fc.constantFrom(..."xyz -:.\n");
    fc.assert(
      fc.property(
        fc.string({ unit: secretChars, minLength: 4, maxLength: 40 }),
        fc.string({ unit: proseChars }),
        fc.string({ unit: proseChars }),
        (secret, before, after) => {
          const out = scrubSecrets(`${before}${secret}${after}(${encodeURIComponent(secret)})`, [secret]);
          assert.ok(!out.includes(secret), out);
          assert.ok(!out.includes(encodeURIComponent(secret)), out);
        },
      ),
    );
  });
});

describe("parseRetryAfter", () => {
  it("reads delta-seconds, retry-after-ms and HTTP dates, rounding up and clamping", () => {
    const now = Date.parse("2026-11-30T12:00:00Z");
    assert.equal(parseRetryAfter(new Headers({ "retry-after": "7" }), now), 7);
    assert.equal(parseRetryAfter({ "Retry-After": "2.1" }, now), 3);
    assert.equal(parseRetryAfter({ "retry-after-ms": "1500" }, now), 2);
    assert.equal(parseRetryAfter({ "retry-after": "Mon, 30 Nov 2026 12:00:30 GMT" }, now), 30);
    assert.equal(parseRetryAfter({ "retry-after": "Mon, 30 Nov 2026 11:00:00 GMT" }, now), 0);
    assert.equal(parseRetryAfter({ "retry-after": "999999999" }, now), 86_400);
    assert.equal(parseRetryAfter({ "retry-after": "soon" }, now), undefined);
    assert.equal(parseRetryAfter(undefined, now), undefined);
    assert.equal(parseRetryAfter({}, now), undefined);
  });
});
