import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { resolveErrandHome } from "../../src/config/resolveErrandHome.js";
import { ConfigError } from "../../src/config/runtimeConfig.js";
import { SECRET_VARIABLES, resolveSecretFiles } from "../../src/config/secretFiles.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-secret-files-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("secret variables given as NAME_FILE", () => {
  test("every secret variable accepts NAME_FILE; one trailing newline is dropped", () => {
    for (const name of SECRET_VARIABLES) {
      const file = join(scratch, `${name}.txt`);
      writeFileSync(file, "s3cret value\n");
      const env = resolveSecretFiles({ [`${name}_FILE`]: file });
      assert.equal(env[name], "s3cret value", name);
    }
  });

  test("both set, an unreadable file or an empty one is a configuration error naming every problem, never the secret", () => {
    const empty = join(scratch, "empty");
    writeFileSync(empty, "");
    assert.throws(
      () =>
        resolveSecretFiles({
          BROWSERLESS_TOKEN: "canary-abc",
          BROWSERLESS_TOKEN_FILE: empty,
          STEEL_API_KEY_FILE: join(scratch, "missing"),
          KERNEL_API_KEY_FILE: empty,
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /BROWSERLESS_TOKEN and BROWSERLESS_TOKEN_FILE are both set/);
        assert.match(error.message, /STEEL_API_KEY_FILE names a file errand cannot read/);
        assert.match(error.message, /KERNEL_API_KEY_FILE names an empty file/);
        assert.doesNotMatch(error.message, /canary-abc/);
        return true;
      },
    );
  });

  test("other variables ending in _FILE are left alone", () => {
    const env = resolveSecretFiles({ SSL_CERT_FILE: "/etc/ssl/cert.pem" });
    assert.equal(env["SSL_CERT"], undefined);
  });
});

describe("resolveErrandHome", () => {
  test("ERRAND_HOME, then systemd's STATE_DIRECTORY, then an absolute XDG_STATE_HOME, then ~/.local/state; never the cwd", () => {
    assert.deepEqual(resolveErrandHome({ ERRAND_HOME: "/x", STATE_DIRECTORY: "/var/lib/errand", HOME: "/h" }), { path: "/x", source: "ERRAND_HOME" });
    assert.deepEqual(resolveErrandHome({ STATE_DIRECTORY: "/var/lib/errand:/var/lib/other", XDG_STATE_HOME: "/s" }), {
      path: "/var/lib/errand",
      source: "STATE_DIRECTORY",
    });
    assert.deepEqual(resolveErrandHome({ XDG_STATE_HOME: "/s", HOME: "/h" }), { path: "/s/errand", source: "XDG_STATE_HOME" });
    assert.deepEqual(resolveErrandHome({ XDG_STATE_HOME: "relative", HOME: "/h" }), { path: "/h/.local/state/errand", source: "HOME" });
    assert.deepEqual(resolveErrandHome({ HOME: "/h" }), { path: "/h/.local/state/errand", source: "HOME" });
  });
});
