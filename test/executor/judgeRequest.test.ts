// The one answer to "may this request go?": each rule on its own, the words of each refusal, and
// the order the rules are checked in when several refuse the same request. No browser.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { blockedKind, judgeRequest, secretRuleReadsContent } from "../../src/executor/judgeRequest.js";
import type { RequestRules, RequestToJudge } from "../../src/executor/judgeRequest.js";
import type { GuardVerdict } from "../../src/executor/networkGuard.js";
import { SecretEgressGuard } from "../../src/executor/secretEgressGuard.js";

const PORTAL = "https://portal.example";
const SECRET = "Hunter Two 9x";

/** The policy as the judge sees it: the metadata address is refused, everything else allowed. */
const guard = {
  checkRequest(url: string): GuardVerdict {
    const host = URL.canParse(url) ? new URL(url).hostname : "";
    if (host === "169.254.169.254") return { allowed: false, code: "ip_blocked", reason: "169.254.169.254 is link-local" };
    if (!URL.canParse(url)) return { allowed: false, code: "invalid_url", reason: "the URL cannot be parsed" };
    return { allowed: true, code: "ok", reason: "allowed" };
  },
};

/** The task's hosts: the portal and shop.example. */
const onTaskHosts = (url: string) => URL.canParse(url) && ["portal.example", "shop.example"].includes(new URL(url).hostname);

function rules({ armed = false, ...overrides }: Partial<RequestRules> & { armed?: boolean } = {}): RequestRules {
  const secretEgress = new SecretEgressGuard();
  if (armed) secretEgress.arm({ name: "portal_pw", sites: [PORTAL], value: SECRET });
  return { guard, onTaskHosts, readOnly: false, secretEgress, ...overrides };
}

function request(overrides: Partial<RequestToJudge> = {}): RequestToJudge {
  return { url: `${PORTAL}/page`, method: "GET", navigation: false, carries: {}, via: "request", ...overrides };
}

/** One request every rule refuses: a read_only POST navigation to the metadata address carrying the secret, in a site task. */
const EVERY_RULE_REFUSES = { url: "http://169.254.169.254/x", method: "POST", navigation: true, carries: { body: `pw=${SECRET}` } } as const;

describe("judgeRequest", () => {
  test("allows a GET the policy allows, with nothing typed", () => {
    assert.deepEqual(judgeRequest(request(), rules()), { allowed: true, carriesSecret: false, writes: false });
  });

  test("policy: a refusal carries the policy's own code and reason", () => {
    const verdict = judgeRequest(request({ url: "http://169.254.169.254/latest" }), rules());
    assert.deepEqual(verdict, { allowed: false, rule: "policy", code: "ip_blocked", reason: "169.254.169.254 is link-local" });
  });

  test("policy: an unparseable URL is refused before any other rule reads it", () => {
    const verdict = judgeRequest(request({ url: "not a url", navigation: true }), rules({ armed: true, siteOrigins: [PORTAL] }));
    assert.equal(verdict.allowed, false);
    assert.equal(!verdict.allowed && verdict.code, "invalid_url");
  });

  test("hosts: a top-level navigation off the task's hosts is navigation_blocked; a subresource there is not this rule's business", () => {
    const navigation = judgeRequest(request({ url: "https://other.example:8080/", navigation: true }), rules());
    assert.deepEqual(navigation, {
      allowed: false,
      rule: "hosts",
      code: "navigation_blocked",
      reason: "other.example:8080 is not the target's host or one of allowedHosts",
    });
    assert.equal(judgeRequest(request({ url: "https://other.example/pixel.gif" }), rules()).allowed, true);
    assert.equal(judgeRequest(request({ url: "https://shop.example/", navigation: true }), rules()).allowed, true);
  });

  test("hosts: a redirect hop is named as a redirect", () => {
    const verdict = judgeRequest(request({ url: "https://other.example/", navigation: true, via: "redirect" }), rules());
    assert.equal(!verdict.allowed && verdict.reason, "a redirect to other.example leaves the task's hosts");
  });

  test("site: another origin on a site host is session_egress_blocked; other hosts and non-site tasks are not this rule's business", () => {
    const siteRules = rules({ siteOrigins: [PORTAL] });
    const verdict = judgeRequest(request({ url: "http://portal.example:8080/x" }), siteRules);
    assert.equal(verdict.allowed, false);
    assert.equal(!verdict.allowed && verdict.rule, "site");
    assert.equal(!verdict.allowed && verdict.code, "session_egress_blocked");
    assert.equal(judgeRequest(request({ url: `${PORTAL}/x` }), siteRules).allowed, true);
    assert.equal(judgeRequest(request({ url: "https://shop.example/x" }), siteRules).allowed, true);
    assert.equal(judgeRequest(request({ url: "http://portal.example:8080/x" }), rules()).allowed, true);
  });

  test("secret: a typed secret in the URL, a header or the body toward an unbound origin is secret_egress_blocked, naming the secret", () => {
    for (const carrying of [
      { url: `https://shop.example/?q=${encodeURIComponent(SECRET)}`, carries: {} },
      { url: "https://shop.example/", carries: { headers: { cookie: `pw=${encodeURIComponent(SECRET)}` } } },
      { url: "https://shop.example/", carries: { body: Buffer.from(`pw=${SECRET}`) } },
    ]) {
      const verdict = judgeRequest(request(carrying), rules({ armed: true }));
      assert.deepEqual(
        verdict,
        {
          allowed: false,
          rule: "secret",
          code: "secret_egress_blocked",
          secret: "portal_pw",
          reason: "it carries the secret portal_pw to https://shop.example, which that secret is not bound to",
        },
        carrying.url,
      );
    }
  });

  test("secret: toward its own site it goes, flagged as carrying a secret; without it, not flagged", () => {
    assert.deepEqual(judgeRequest(request({ method: "POST", carries: { body: `pw=${SECRET}` } }), rules({ armed: true })), {
      allowed: true,
      carriesSecret: true,
      writes: true,
    });
    assert.deepEqual(judgeRequest(request({ url: "https://shop.example/", carries: { body: "nothing" } }), rules({ armed: true })), {
      allowed: true,
      carriesSecret: false,
      writes: false,
    });
  });

  test("secret: nothing is read before a secret is typed", () => {
    assert.deepEqual(judgeRequest(request({ url: "https://shop.example/", carries: { body: `pw=${SECRET}` } }), rules()), {
      allowed: true,
      carriesSecret: false,
      writes: false,
    });
    assert.equal(judgeRequest(request({ url: "https://shop.example/", carries: { unseen: "x" } }), rules()).allowed, true);
  });

  test("secret: content the hook cannot see is refused toward any origin the secret is not bound to, and only there", () => {
    const unseen = { unseen: "the socket's handshake carries cookies errand cannot see" };
    const verdict = judgeRequest(request({ url: "https://shop.example/ws", carries: unseen }), rules({ armed: true }));
    assert.deepEqual(verdict, {
      allowed: false,
      rule: "secret",
      code: "secret_egress_blocked",
      secret: "portal_pw",
      reason: "the socket's handshake carries cookies errand cannot see, and the secret portal_pw is not bound to https://shop.example",
    });
    assert.deepEqual(judgeRequest(request({ url: `${PORTAL}/ws`, carries: unseen }), rules({ armed: true })), {
      allowed: true,
      carriesSecret: false,
      writes: false,
    });
  });

  test("secret: the words say how it would have left", () => {
    const reasonVia = (via: RequestToJudge["via"]) => {
      const verdict = judgeRequest(request({ url: "https://shop.example/", carries: { body: SECRET }, via }), rules({ armed: true }));
      return verdict.allowed ? "" : verdict.reason;
    };
    assert.match(reasonVia("redirect"), /^a redirect would carry the secret portal_pw to https:\/\/shop\.example/);
    assert.match(reasonVia("socket message"), /^a message carried the secret portal_pw/);
    assert.match(reasonVia("unload"), /^it carries the secret portal_pw .*\(sent while the page unloaded\)$/);
  });

  test("method: a read_only task's write is method_blocked, in any case; GET, HEAD and OPTIONS go", () => {
    assert.deepEqual(judgeRequest(request({ method: "post" }), rules({ readOnly: true })), {
      allowed: false,
      rule: "method",
      code: "method_blocked",
      reason: "POST is not allowed in a read_only task",
    });
    for (const method of ["GET", "head", "OPTIONS"]) assert.equal(judgeRequest(request({ method }), rules({ readOnly: true })).allowed, true, method);
  });

  test("method: a write task's write goes, marked as a write (it crosses the mutation boundary)", () => {
    assert.deepEqual(judgeRequest(request({ method: "DELETE" }), rules()), { allowed: true, carriesSecret: false, writes: true });
  });

  test("unload: every refusal says it was sent while the page unloaded", () => {
    const verdict = judgeRequest(request({ url: "http://169.254.169.254/", via: "unload" }), rules());
    assert.equal(!verdict.allowed && verdict.reason, "169.254.169.254 is link-local (sent while the page unloaded)");
    const write = judgeRequest(request({ method: "POST", via: "unload" }), rules({ readOnly: true }));
    assert.equal(!write.allowed && write.reason, "POST is not allowed in a read_only task (sent while the page unloaded)");
  });

  test("order: policy, then hosts, then site, then secret, then method", () => {
    const all = rules({ armed: true, readOnly: true, siteOrigins: [PORTAL] });
    const ruleOf = (overrides: Partial<RequestToJudge>) => {
      const verdict = judgeRequest(request({ ...EVERY_RULE_REFUSES, ...overrides }), all);
      return verdict.allowed ? "allowed" : verdict.rule;
    };
    // Each request below is refused by every rule from the named one on.
    assert.equal(ruleOf({}), "policy");
    assert.equal(ruleOf({ url: "http://other.example/" }), "hosts");
    assert.equal(ruleOf({ url: "http://portal.example:8080/" }), "site");
    assert.equal(ruleOf({ url: "http://portal.example:8080/", navigation: false }), "site");
    assert.equal(ruleOf({ url: "https://shop.example/" }), "secret");
    assert.equal(ruleOf({ url: `${PORTAL}/` }), "method");
  });

  test("order: a read_only write that also breaks another rule is refused by that rule, which stops a navigating page", () => {
    const verdict = judgeRequest(
      request({ url: "https://shop.example/", method: "POST", navigation: true, carries: { unseen: "its body could not be read" }, via: "unload" }),
      rules({ armed: true, readOnly: true }),
    );
    assert.equal(!verdict.allowed && verdict.rule, "secret");
  });
});

describe("blockedKind", () => {
  test("counts a write as a write, a secret as secret egress, a navigation as a navigation, the rest as the policy's", () => {
    assert.equal(blockedKind("method", true), "method");
    assert.equal(blockedKind("secret", true), "secret");
    assert.equal(blockedKind("secret", false), "secret");
    assert.equal(blockedKind("policy", true), "navigation");
    assert.equal(blockedKind("hosts", true), "navigation");
    assert.equal(blockedKind("site", true), "navigation");
    assert.equal(blockedKind("site", false), "secret");
    assert.equal(blockedKind("policy", false), "policy");
  });
});

describe("secretRuleReadsContent", () => {
  test("only once a secret is typed, and only toward an origin it is not bound to", () => {
    assert.equal(secretRuleReadsContent("https://shop.example/", rules()), false);
    assert.equal(secretRuleReadsContent("https://shop.example/", rules({ armed: true })), true);
    assert.equal(secretRuleReadsContent(`${PORTAL}/x`, rules({ armed: true })), false);
  });
});
