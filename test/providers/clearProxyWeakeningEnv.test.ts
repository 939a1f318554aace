import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { clearProxyWeakeningEnv, sandboxNotice } from "../../src/providers/local/chromiumLaunch.js";

describe("the environment the local Chromium gets", () => {
  test("Playwright's proxy-weakening variables leave errand's own environment, and the browser gets no PLAYWRIGHT_* or proxy variable", () => {
    const processEnv: NodeJS.ProcessEnv = {
      PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK: "1",
      PLAYWRIGHT_PROXY_BYPASS_FOR_TESTING: "<-loopback>",
      HTTPS_PROXY: "http://errand-own:3128",
      PATH: "/usr/bin",
    };
    const configured: NodeJS.ProcessEnv = {
      ...processEnv,
      PLAYWRIGHT_BROWSERS_PATH: "/x",
      http_proxy: "http://p:1",
      no_proxy: "*",
      ALL_PROXY: "socks5://p:2",
      auto_proxy: "http://pac",
      HOME: "/home/e",
    };
    const browserEnv = clearProxyWeakeningEnv(processEnv, configured);
    assert.equal(processEnv["PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK"], undefined);
    assert.equal(processEnv["PLAYWRIGHT_PROXY_BYPASS_FOR_TESTING"], undefined);
    // errand's own proxy setting stays for errand (its DoH resolver may need it).
    assert.equal(processEnv["HTTPS_PROXY"], "http://errand-own:3128");
    assert.deepEqual(browserEnv, { PATH: "/usr/bin", HOME: "/home/e" });
  });

  test("the startup notice says why the sandbox is off, and nothing when it is on", () => {
    assert.equal(sandboxNotice(true, {}), null);
    assert.match(sandboxNotice(false, {}) ?? "", /runs as root.*own unprivileged user/);
    assert.match(sandboxNotice(false, { ERRAND_CHROMIUM_SANDBOX: "off" }) ?? "", /ERRAND_CHROMIUM_SANDBOX=off/);
  });
});
