// The owner-password lockout from the attacker's side: concurrent guesses, a stranger locking the
// owner out, X-Forwarded-For spoofing, and a flood of /authorize requests pushing out the owner's
// pending consent. Loopback only.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { addressKey, parseTrustedProxies, resolveClientAddress } from "../../../src/interfaces/http/clientAddress.js";
import { FORWARDED_WARNING_EVERY_MS, createForwardedHeaderWatch } from "../../../src/interfaces/http/forwardedHeaderWatch.js";
import { hashOwnerPassword } from "../../../src/interfaces/http/oauth/ownerPassword.js";
import { MAX_PENDING, MAX_PENDING_PER_ADDRESS } from "../../../src/interfaces/http/oauth/pendingConsents.js";
import type { LoggedLine } from "./support/appHarness.js";
import { fetchFrom, startLoopbackProxy } from "./support/loopbackProxy.js";
import { CALLBACK, OWNER_PASSWORD, openAppHarness, startAppServer } from "./support/appHarness.js";
import type { AppHarness } from "./support/appHarness.js";
import { answerConsent, inProcess, openConsent, pkcePair } from "./support/oauthDance.js";
import type { Fetcher } from "./support/oauthDance.js";

const ORIGIN = "http://127.0.0.1:8787";
const LOCKOUT = { threshold: 5, baseLockMs: 60_000, maxLockMs: 600_000, slowdownStepMs: 5, slowdownMaxMs: 20, forgetMs: 86_400_000 };

/** A fetcher that presents itself as coming from `address` (the in-process harness reads x-test-address). */
function from(h: AppHarness, address: string): Fetcher {
  const inner = inProcess(h.request);
  return (url, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("x-test-address", address);
    return inner(url, { ...init, headers });
  };
}

async function authorizeUrl(fetcher: Fetcher, origin: string): Promise<string> {
  const registered = (await (
    await fetcher(`${origin}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "lockout-test", redirect_uris: [CALLBACK], token_endpoint_auth_method: "none" }),
    })
  ).json()) as { client_id: string };
  const { challenge } = await pkcePair();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: CALLBACK,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "s",
  });
  return `${origin}/authorize?${query.toString()}`;
}

/** Counts how often the owner's password hash is fetched, which happens once per evaluation. */
function countEvaluations(h: AppHarness): { count: () => number } {
  let n = 0;
  const deps = h.deps;
  const original = deps.ownerSecret.bind(deps);
  deps.ownerSecret = () => {
    n += 1;
    return original();
  };
  return { count: () => n };
}

describe("owner-password lockout", () => {
  test("60 concurrent guesses from one address: at most the allowance is evaluated, and the right password sent among them gets no code", async () => {
    const h = await openAppHarness({ settings: { lockout: LOCKOUT } });
    try {
      const evaluations = countEvaluations(h);
      const attacker = from(h, "198.51.100.7");
      const page = await openConsent(attacker, await authorizeUrl(attacker, ORIGIN));
      assert.equal(page.status, 200);
      const opened = evaluations.count(); // the page notes which password is in force
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          answerConsent(attacker, ORIGIN, page, { decision: "approve", password: i === 30 ? OWNER_PASSWORD : `wrong guess ${i}` }),
        ),
      );
      assert.ok(
        evaluations.count() - opened <= LOCKOUT.threshold,
        `${evaluations.count() - opened} passwords were evaluated; the allowance is ${LOCKOUT.threshold}`,
      );
      for (const answer of answers) {
        const location = answer.headers.get("location") ?? "";
        assert.ok(!location.includes("code="), "no code was issued to the concurrent guesses");
      }
      assert.ok(answers.filter((a) => a.status === 429).length >= 60 - LOCKOUT.threshold);
      const record = await h.access.readOwnerLockout("198.51.100.7");
      assert.ok(record.lockedUntilMs !== null, "the address is locked");
      const before = evaluations.count();
      const fresh = await openConsent(attacker, await authorizeUrl(attacker, ORIGIN));
      assert.equal(fresh.status, 429, "no consent page for a locked address");
      assert.equal(evaluations.count(), before);
    } finally {
      await h.close();
    }
  });

  test("a stranger's wrong guesses lock only the stranger's address: the owner, elsewhere, still approves", async () => {
    const h = await openAppHarness({ settings: { lockout: LOCKOUT } });
    try {
      const stranger = from(h, "198.51.100.7");
      const owner = from(h, "203.0.113.9");
      const ownerPage = await openConsent(owner, await authorizeUrl(owner, ORIGIN));
      const strangerPage = await openConsent(stranger, await authorizeUrl(stranger, ORIGIN));
      for (let i = 0; i < LOCKOUT.threshold; i += 1)
        await answerConsent(stranger, ORIGIN, strangerPage, { decision: "approve", password: `guess number ${i}` });
      assert.equal((await openConsent(stranger, await authorizeUrl(stranger, ORIGIN))).status, 429, "the stranger is locked");
      assert.equal((await h.access.readOwnerLockout("203.0.113.9")).failures, 0);
      const approved = await answerConsent(owner, ORIGIN, ownerPage, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(approved.status, 303);
      assert.match(approved.headers.get("location") ?? "", /code=errand_ac_/);

      // errand owner unlock's store call lifts the stranger's lock (the CLI test drives the command itself).
      assert.equal(await h.access.clearOwnerLockouts("198.51.100.7"), 1);
      assert.equal((await openConsent(stranger, await authorizeUrl(stranger, ORIGIN))).status, 200);
    } finally {
      await h.close();
    }
  });

  test("the right password resets the count; the lock escalates 1 then 2 minutes and is capped at 3", async () => {
    let now = Date.UTC(2026, 0, 1);
    const h = await openAppHarness({ settings: { lockout: { ...LOCKOUT, maxLockMs: 180_000 } }, clock: () => now });
    try {
      const guesser = from(h, "198.51.100.8");
      const lockOnce = async (): Promise<number> => {
        const page = await openConsent(guesser, await authorizeUrl(guesser, ORIGIN));
        assert.equal(page.status, 200);
        for (let i = 0; i < LOCKOUT.threshold; i += 1) await answerConsent(guesser, ORIGIN, page, { decision: "approve", password: `wrong ${i} here` });
        const record = await h.access.readOwnerLockout("198.51.100.8");
        return (record.lockedUntilMs ?? now) - now;
      };
      assert.equal(await lockOnce(), 60_000);
      now += 60_000;
      assert.equal(await lockOnce(), 120_000);
      now += 120_000;
      assert.equal(await lockOnce(), 180_000, "capped at maxLockMs");
      now += 180_000;
      const page = await openConsent(guesser, await authorizeUrl(guesser, ORIGIN));
      const right = await answerConsent(guesser, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(right.status, 303);
      assert.deepEqual(await h.access.readOwnerLockout("198.51.100.8"), { failures: 0, lockouts: 0, lockedUntilMs: null, lastFailureMs: null });
    } finally {
      await h.close();
    }
  });

  test("201 /authorize requests from one address do not push out another address's pending consent", async () => {
    const h = await openAppHarness({ settings: { lockout: LOCKOUT } });
    try {
      const owner = from(h, "203.0.113.9");
      const stranger = from(h, "198.51.100.7");
      const ownerPage = await openConsent(owner, await authorizeUrl(owner, ORIGIN));
      const url = await authorizeUrl(stranger, ORIGIN);
      for (let i = 0; i < 201; i += 1) assert.equal((await stranger(url)).status, 200);
      const approved = await answerConsent(owner, ORIGIN, ownerPage, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(approved.status, 303, "the owner's consent is still there");
      assert.match(approved.headers.get("location") ?? "", /code=/);
    } finally {
      await h.close();
    }
  });

  test("a flood of /authorize requests from many addresses stops at the pending-consent cap: the owner's waiting consent is never pushed out, new requests are refused until some expire", async () => {
    let now = Date.UTC(2026, 0, 1);
    const h = await openAppHarness({ settings: { lockout: LOCKOUT }, clock: () => now });
    try {
      const owner = from(h, "203.0.113.9");
      const ownerPage = await openConsent(owner, await authorizeUrl(owner, ORIGIN));
      assert.equal(ownerPage.status, 200);
      const url = await authorizeUrl(owner, ORIGIN);
      // IPv6 attackers count by their /64: one /64 holds at most MAX_PENDING_PER_ADDRESS.
      const sameSlash64 = await Promise.all(Array.from({ length: 20 }, (_, i) => from(h, addressKey(`2001:db8:1:2::${i + 1}`))(url)));
      assert.ok(sameSlash64.every((r) => r.status === 200));
      const statuses: number[] = [];
      for (let i = 0; statuses.length < MAX_PENDING + 50; i += 1)
        statuses.push((await from(h, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)(url)).status);
      const accepted = statuses.filter((status) => status === 200).length;
      assert.equal(
        accepted,
        MAX_PENDING - 1 - MAX_PENDING_PER_ADDRESS,
        "the store of pending consents stops at its cap (the owner's and one /64's five are in it)",
      );
      assert.ok(
        statuses.slice(accepted).every((status) => status === 429),
        "past the cap new requests are refused, nobody's is dropped",
      );
      const approved = await answerConsent(owner, ORIGIN, ownerPage, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(approved.status, 303, "the owner's consent survived the flood");
      assert.match(approved.headers.get("location") ?? "", /code=errand_ac_/);
      now += h.settings.tokens.consentMs;
      assert.equal((await openConsent(owner, url)).status, 200, "expired requests make room again");
    } finally {
      await h.close();
    }
  });

  test("X-Forwarded-For is believed only from a trusted proxy", async () => {
    const trusted = parseTrustedProxies("127.0.0.1, 10.0.0.0/8, fd00::/8");
    assert.equal(resolveClientAddress("127.0.0.1", "198.51.100.7", trusted), "198.51.100.7");
    assert.equal(
      resolveClientAddress("::ffff:127.0.0.1", "203.0.113.1, 198.51.100.7, 10.1.2.3", trusted),
      "198.51.100.7",
      "walks right to left past trusted hops; the leftmost is the client's own claim",
    );
    assert.equal(resolveClientAddress("192.0.2.50", "198.51.100.7", trusted), "192.0.2.50", "an untrusted peer's header is ignored");
    assert.equal(resolveClientAddress("127.0.0.1", "not-an-ip", trusted), "127.0.0.1");
    assert.equal(resolveClientAddress("127.0.0.1", "[2001:db8::1]:443", trusted), "2001:db8::1");
    assert.equal(addressKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
    assert.equal(addressKey("2001:db8::7"), addressKey("2001:db8:0:0:ffff::1"));
    assert.equal(addressKey("::ffff:198.51.100.7"), "198.51.100.7");
    assert.throws(() => parseTrustedProxies("10.0.0.0/33"), /ERRAND_TRUSTED_PROXIES/);
    assert.throws(() => parseTrustedProxies("proxy.example"), /ERRAND_TRUSTED_PROXIES/);

    // On a real socket: without trust, rotating X-Forwarded-For values does not escape the lock.
    const untrusting = await startAppServer({ settings: { lockout: LOCKOUT } });
    try {
      const page = await openConsent(fetch, await authorizeUrl(fetch, untrusting.origin));
      for (let i = 0; i < LOCKOUT.threshold; i += 1) {
        const spoofed: Fetcher = (u, init = {}) =>
          fetch(u, { ...init, headers: { ...(init.headers as Record<string, string>), "x-forwarded-for": `198.51.100.${i}` } });
        await answerConsent(spoofed, untrusting.origin, page, { decision: "approve", password: `wrong guess ${i}` });
      }
      assert.ok((await untrusting.access.readOwnerLockout("127.0.0.1")).lockedUntilMs !== null, "counted under the socket's address");
    } finally {
      await untrusting.close();
    }
    // Behind a trusted proxy, the forwarded client is what counts.
    const proxied = await startAppServer({ settings: { lockout: LOCKOUT }, trustedProxies: "127.0.0.1" });
    try {
      const via =
        (client: string): Fetcher =>
        (u, init = {}) =>
          fetch(u, { ...init, headers: { ...(init.headers as Record<string, string>), "x-forwarded-for": client } });
      const stranger = via("198.51.100.7");
      const page = await openConsent(stranger, await authorizeUrl(stranger, proxied.origin));
      for (let i = 0; i < LOCKOUT.threshold; i += 1) await answerConsent(stranger, proxied.origin, page, { decision: "approve", password: `wrong guess ${i}` });
      assert.ok((await proxied.access.readOwnerLockout("198.51.100.7")).lockedUntilMs !== null);
      const owner = via("203.0.113.9");
      const ownerPage = await openConsent(owner, await authorizeUrl(owner, proxied.origin));
      assert.equal(ownerPage.status, 200, "the owner behind the same proxy is not locked");
    } finally {
      await proxied.close();
    }
  });

  /** The same fetcher, also sending an X-Forwarded-For of the caller's choosing. */
  const forging =
    (fetcher: Fetcher, claimed: string): Fetcher =>
    (u, init = {}) => {
      const headers = new Headers(init.headers);
      headers.set("x-forwarded-for", claimed);
      return fetcher(u, { ...init, headers });
    };
  const proxyWarnings = (logs: LoggedLine[]) => logs.filter((l) => l.level === "warn" && l.message.includes("ERRAND_TRUSTED_PROXIES"));

  test("behind a trusted reverse proxy on loopback, a stranger's wrong passwords (forged X-Forwarded-For included) lock only the stranger; the owner approves", async () => {
    const server = await startAppServer({ settings: { lockout: LOCKOUT }, trustedProxies: "127.0.0.1" });
    const proxy = await startLoopbackProxy(server.origin);
    try {
      const proxyPort = Number(new URL(proxy.origin).port);
      // The stranger claims to be the owner's address; the proxy appends the real one, which counts.
      const stranger = forging(fetchFrom("127.0.0.2", proxyPort), "127.0.0.3");
      const owner = fetchFrom("127.0.0.3", proxyPort);
      const strangerPage = await openConsent(stranger, await authorizeUrl(stranger, server.origin));
      assert.equal(strangerPage.status, 200);
      const answers: Response[] = [];
      for (let i = 0; i < LOCKOUT.threshold + 2; i += 1)
        answers.push(await answerConsent(stranger, server.origin, strangerPage, { decision: "approve", password: `wrong guess ${i}` }));
      assert.ok(
        answers.every((a) => !(a.headers.get("location") ?? "").includes("code=")),
        "the stranger got no code",
      );
      const lockedAnswer = answers.find((a) => a.status === 429);
      assert.ok(lockedAnswer !== undefined, "the stranger is locked");
      assert.match(await lockedAnswer.text(), /errand owner unlock/, "the lock names the command that lifts it");
      assert.equal((await openConsent(stranger, await authorizeUrl(stranger, server.origin))).status, 429);
      assert.ok((await server.access.readOwnerLockout("127.0.0.2")).lockedUntilMs !== null, "counted under the stranger's real address");
      assert.equal((await server.access.readOwnerLockout("127.0.0.3")).failures, 0, "the forged header counted nothing against the owner");
      assert.equal((await server.access.readOwnerLockout("127.0.0.1")).failures, 0, "nor against the proxy");

      const ownerPage = await openConsent(owner, await authorizeUrl(owner, server.origin));
      assert.equal(ownerPage.status, 200, "the owner, behind the same proxy, is not locked out");
      const approved = await answerConsent(owner, server.origin, ownerPage, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(approved.status, 303);
      assert.match(approved.headers.get("location") ?? "", /code=errand_ac_/);
      assert.deepEqual(proxyWarnings(server.logs), [], "a trusted proxy's headers raise no warning");
      assert.deepEqual(server.forwarded, []);
    } finally {
      await proxy.close();
      await server.close();
    }
  });

  test("behind a proxy errand does not trust: its headers are ignored, one warning for many requests names it, and the lock page names errand owner unlock", async () => {
    const server = await startAppServer({ settings: { lockout: LOCKOUT } });
    const proxy = await startLoopbackProxy(server.origin);
    try {
      const proxyPort = Number(new URL(proxy.origin).port);
      const stranger = fetchFrom("127.0.0.2", proxyPort);
      const owner = fetchFrom("127.0.0.3", proxyPort);
      const page = await openConsent(stranger, await authorizeUrl(stranger, server.origin));
      for (let i = 0; i < LOCKOUT.threshold; i += 1) await answerConsent(stranger, server.origin, page, { decision: "approve", password: `wrong guess ${i}` });
      // Everyone shares the proxy's address: this is the misconfiguration the warning is for.
      const ownerPage = await openConsent(owner, await authorizeUrl(owner, server.origin));
      assert.equal(ownerPage.status, 429);
      assert.match(ownerPage.html, /errand owner unlock/);
      const warnings = proxyWarnings(server.logs);
      assert.equal(warnings.length, 1, `one warning, not one per request: ${JSON.stringify(warnings)}`);
      assert.match(warnings[0]?.message ?? "", /x-forwarded-for.*127\.0\.0\.1/i);
      assert.equal(server.forwarded.length, 1);
      assert.match(server.forwarded[0]?.peer ?? "", /127\.0\.0\.1$/);
      assert.equal(server.forwarded[0]?.header, "x-forwarded-for");
      await server.access.clearOwnerLockouts();
      const again = await openConsent(owner, await authorizeUrl(owner, server.origin));
      assert.equal(
        (await answerConsent(owner, server.origin, again, { decision: "approve", password: OWNER_PASSWORD })).status,
        303,
        "errand owner unlock's store call lets the owner in",
      );
    } finally {
      await proxy.close();
      await server.close();
    }
  });

  test("the forwarded-header warning repeats at most once an interval, with the count; never for a trusted proxy that sends X-Forwarded-For, but for one that names the client only in X-Real-IP", () => {
    let now = 0;
    const logs: LoggedLine[] = [];
    const recorded: number[] = [];
    const watch = createForwardedHeaderWatch({
      trusted: parseTrustedProxies("10.0.0.0/8"),
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: (message, fields) => logs.push({ level: "warn", message, fields }),
        error: () => undefined,
      },
      record: (seen) => recorded.push(seen.requests),
      clock: () => now,
    });
    const forwarded = new Headers({ forwarded: "for=198.51.100.7" });
    for (let i = 0; i < 50; i += 1) watch.observe("192.0.2.1", forwarded);
    watch.observe("10.1.2.3", new Headers({ "x-forwarded-for": "198.51.100.7", forwarded: "for=198.51.100.7" }));
    watch.observe("192.0.2.1", new Headers());
    now += FORWARDED_WARNING_EVERY_MS;
    watch.observe("::ffff:192.0.2.1", new Headers({ "x-real-ip": "198.51.100.7" }));
    assert.deepEqual(
      logs.map((l) => l.fields?.["requests"]),
      [1, 51],
    );
    assert.deepEqual(recorded, [1, 51]);

    // nginx with only "proxy_set_header X-Real-IP $remote_addr": trusted, but errand cannot see the client.
    const trustedLogs: LoggedLine[] = [];
    const trustedWatch = createForwardedHeaderWatch({
      trusted: parseTrustedProxies("127.0.0.1"),
      logger: {
        debug: () => undefined,
        info: () => undefined,
        warn: (message, fields) => trustedLogs.push({ level: "warn", message, fields }),
        error: () => undefined,
      },
    });
    trustedWatch.observe("127.0.0.1", new Headers());
    trustedWatch.observe("127.0.0.1", new Headers({ "x-real-ip": "198.51.100.7" }));
    assert.deepEqual(
      trustedLogs.map((l) => l.fields?.["problem"]),
      ["no_x_forwarded_for"],
    );
    assert.match(trustedLogs[0]?.message ?? "", /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for/);
  });

  test("a password changed while the consent page was open: the old one is refused with a message that says so, the new one approves", async () => {
    const h = await openAppHarness({ settings: { lockout: LOCKOUT } });
    try {
      await h.access.writeOwnerSecret(await hashOwnerPassword(OWNER_PASSWORD));
      h.deps.ownerSecret = () => h.access.readOwnerSecret();
      const owner = from(h, "203.0.113.9");
      const page = await openConsent(owner, await authorizeUrl(owner, ORIGIN));
      const NEW_PASSWORD = "a brand new owner password";
      await h.access.writeOwnerSecret(await hashOwnerPassword(NEW_PASSWORD));
      const old = await answerConsent(owner, ORIGIN, page, { decision: "approve", password: OWNER_PASSWORD });
      assert.equal(old.status, 401);
      const text = await old.text();
      assert.match(text, /Wrong password; nothing was approved\. The owner password was changed after this page opened: use the new one\./);
      assert.match(text, /4 more wrong answers from your address lock it for 1 minute/);
      assert.ok(!text.includes(NEW_PASSWORD) && !text.includes(OWNER_PASSWORD));
      const fresh = await answerConsent(owner, ORIGIN, page, { decision: "approve", password: NEW_PASSWORD });
      assert.equal(fresh.status, 303);
      assert.match(fresh.headers.get("location") ?? "", /code=errand_ac_/);
      // A stranger's page opened after the change learns nothing of it.
      const stranger = from(h, "198.51.100.7");
      const strangerPage = await openConsent(stranger, await authorizeUrl(stranger, ORIGIN));
      const wrong = await (await answerConsent(stranger, ORIGIN, strangerPage, { decision: "approve", password: "just a guess here" })).text();
      assert.doesNotMatch(wrong, /changed/);
    } finally {
      await h.close();
    }
  });
});
