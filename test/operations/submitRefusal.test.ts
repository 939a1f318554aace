// Refused at submit, before the owner is asked, what is already known to fail: a secret the owner
// never declared, a secret bound to no origin the task reaches (a look-alike site), an upload of a
// file the owner never added, a goto to a host the task does not name. Nothing is queued, no
// approval is asked, no executor runs; the message names what to fix. Real SQLite store, secret
// registry and owner files.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { createFakeExecutor } from "./support/fakeExecutor.js";
import { openHarness } from "./support/harness.js";
import { readTask, writeTask } from "./support/tasks.js";

const VALUE = "a-long-secret-value-for-tests";

function loginTask(target: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...readTask(randomUUID()),
    target: { url: target },
    risk: "reversible_write",
    approved: true,
    secretApproval: true,
    steps: [
      { action: "fill_secret", selector: "#password", secret: "portal" },
      { action: "click", selector: "#login" },
      { action: "expect_text", text: "Welcome" },
    ],
    ...extra,
  };
}

describe("submit refuses what is known to fail, before asking the owner", () => {
  test("an undeclared secret and a secret bound elsewhere (a look-alike) are refused at submit, naming the secret and the target's origin; nothing is queued", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const undeclared = loginTask("https://portal.example.com/login");
      const unknown = await h.service.submit(undeclared);
      assert.equal(unknown.ok, false);
      assert.equal(!unknown.ok && unknown.code, "secret_unknown");
      assert.match(!unknown.ok ? unknown.message : "", /secret portal, which the owner has not declared/);
      assert.match(!unknown.ok ? unknown.message : "", /errand secret set portal --site https:\/\/portal\.example\.com/);
      assert.deepEqual(!unknown.ok && unknown.problems?.map((p) => [p.code, p.path]), [["secret_unknown", "/steps/0/secret"]]);

      await h.secrets().set("portal", ["https://portal.example.com"], { kind: "stored", value: VALUE });
      const lookalike = await h.service.submit(loginTask("https://portal-example.com/login"));
      assert.equal(!lookalike.ok && lookalike.code, "secret_site_mismatch");
      assert.match(
        !lookalike.ok ? lookalike.message : "",
        /bound the secret portal to https:\/\/portal\.example\.com, and this task reaches none of them \(its target is https:\/\/portal-example\.com\)/,
      );
      assert.match(!lookalike.ok ? lookalike.message : "", /a look-alike gets no secret/);
      assert.ok(!(!lookalike.ok ? lookalike.message : "").includes(VALUE));

      // Nothing was created: the same ids are free, no approval waits, nothing ran.
      assert.equal(((await h.service.inspect(String(undeclared["operationId"]))) as { code?: string }).code, "operation_not_found");
      const status = await h.service.status();
      assert.ok(
        Object.values(status.store.phases).every((count) => count === 0),
        JSON.stringify(status.store.phases),
      );
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);

      // The same id, now aimed at the real site, is accepted (and waits for the owner).
      const fixed = await h.service.submit({ ...undeclared });
      assert.ok(fixed.ok, JSON.stringify(fixed));
      assert.equal(fixed.status, "awaiting_approval");
    } finally {
      await h.close();
    }
  });

  test("a secret is accepted wherever the task may reach one of its sites: a wildcard site, a goto, an allowedHosts entry", async () => {
    const h = await openHarness();
    try {
      await h.secrets().set("portal", ["https://*.example.com", "https://sso.example.org"], { kind: "stored", value: VALUE });
      const accepted = [
        loginTask("https://login.example.com/"),
        loginTask("https://shop.example.net/", { allowedHosts: ["sso.example.org"] }),
        loginTask("https://shop.example.net/", { allowedHosts: ["*.example.org"] }),
        loginTask("https://shop.example.net/", {
          allowedHosts: ["id.example.com"],
          steps: [
            { action: "goto", url: "https://id.example.com/login" },
            { action: "fill_secret", selector: "#p", secret: "portal" },
          ],
        }),
      ];
      for (const task of accepted) {
        const result = await h.service.submit(task);
        assert.ok(result.ok, JSON.stringify(task));
      }
      const refused = [
        loginTask("https://example.com/"),
        loginTask("http://login.example.com/"),
        loginTask("https://shop.example.net/", { allowedHosts: ["example.org"] }),
      ];
      for (const task of refused) {
        const result = await h.service.submit(task);
        assert.equal(!result.ok && result.code, "secret_site_mismatch", JSON.stringify(task));
      }
    } finally {
      await h.close();
    }
  });

  test("a goto to a host the task does not name is refused at submit, naming the host", async () => {
    const h = await openHarness();
    try {
      const task = {
        ...readTask(),
        target: { url: "https://library.example.com/" },
        allowedHosts: ["*.library.example.com"],
        steps: [
          { action: "goto", url: "https://evil.example.net/phish" },
          { action: "expect_text", text: "x" },
        ],
      };
      const result = await h.service.submit(task);
      assert.equal(!result.ok && result.code, "navigation_blocked");
      assert.match(
        !result.ok ? result.message : "",
        /Step 1 \(goto\) goes to evil\.example\.net, which is not one of this task's hosts \(the target library\.example\.com and allowedHosts \*\.library\.example\.com\)/,
      );
      assert.deepEqual(!result.ok && result.problems?.map((p) => p.path), ["/steps/0/url"]);
      assert.ok((await h.service.submit({ ...task, allowedHosts: ["evil.example.net"] })).ok);
    } finally {
      await h.close();
    }
  });

  test("a wait_for on an address off the task's hosts is refused at submit like a goto", async () => {
    const h = await openHarness();
    try {
      const task = {
        ...readTask(),
        target: { url: "https://library.example.com/" },
        steps: [
          { action: "wait_for", url: "https://evil.example.net/", match: "prefix" },
          { action: "expect_text", text: "x" },
        ],
      };
      const result = await h.service.submit(task);
      assert.equal(!result.ok && result.code, "navigation_blocked");
      assert.match(!result.ok ? result.message : "", /Step 1 \(wait_for\) waits for an address on evil\.example\.net/);
      assert.deepEqual(!result.ok && result.problems?.map((p) => p.path), ["/steps/0/url"]);
    } finally {
      await h.close();
    }
  });

  test("an upload naming a file the owner never added is refused at submit (file_unknown at the step's file); nothing is queued, the owner is not asked, nothing runs", async () => {
    const fake = createFakeExecutor();
    const h = await openHarness({ execute: fake.execute });
    try {
      const task = writeTask(randomUUID(), undefined, {
        steps: [
          { action: "upload", selector: "#cv", file: "resume.pdf" },
          { action: "click", selector: "#send" },
          { action: "expect_text", text: "Received" },
        ],
      });
      const refused = await h.service.submit(task);
      assert.equal(!refused.ok && refused.code, "file_unknown");
      assert.deepEqual(!refused.ok && refused.problems?.map((p) => [p.code, p.path]), [["file_unknown", "/steps/0/file"]]);
      assert.match(!refused.ok ? refused.message : "", /names the file resume\.pdf, which the owner has not added/);
      assert.match(!refused.ok ? refused.message : "", /errand file add resume\.pdf PATH/);
      assert.match(!refused.ok ? refused.message : "", /Nothing was queued and the owner was not asked/);

      // Nothing was created: the id is free, no operation in any phase (none awaits approval), nothing ran.
      assert.equal(((await h.service.inspect(String(task["operationId"]))) as { code?: string }).code, "operation_not_found");
      const status = await h.service.status();
      assert.ok(
        Object.values(status.store.phases).every((count) => count === 0),
        JSON.stringify(status.store.phases),
      );
      await h.service.runQueue();
      assert.equal(fake.calls.length, 0);

      // Once the owner adds the file, the same id is accepted and waits for the owner.
      await h.files().add("resume.pdf", Buffer.from("%PDF-1.4 test"));
      const fixed = await h.service.submit({ ...task });
      assert.ok(fixed.ok, JSON.stringify(fixed));
      assert.equal(fixed.status, "awaiting_approval");
    } finally {
      await h.close();
    }
  });

  test("a retry of an operation that already exists is answered from it, even after its secret was deleted", async () => {
    const h = await openHarness();
    try {
      await h.secrets().set("portal", ["https://portal.example.com"], { kind: "stored", value: VALUE });
      const task = loginTask("https://portal.example.com/login");
      const first = await h.service.submit(task);
      assert.ok(first.ok);
      await h.secrets().delete("portal");
      const again = await h.service.submit(task);
      assert.ok(again.ok, JSON.stringify(again));
      assert.equal(again.created, false);
      assert.equal(again.handle.requestDigest, first.handle.requestDigest);
    } finally {
      await h.close();
    }
  });
});
