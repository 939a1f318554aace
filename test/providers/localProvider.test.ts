import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { findChromium } from "../../src/providers/local/findChromium.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import type { BrowserStoppedWrite } from "../../src/providers/local/browserWriteGuard.js";
import type { ProviderSession } from "../../src/providers/providerTypes.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";

/**
 * The local provider's two warm browsers: write sessions in one, read_only sessions in another
 * whose browser target fails every write (src/providers/local/browserWriteGuard.ts). These tests
 * use the provider bare (no egress proxy, no executor guards), so the only thing between a
 * read_only page and the listener is that browser-wide stop.
 */
let site: FixtureServer;

/** A page that writes in every way a page can without a user: fetch, beacon, keepalive, a dedicated worker, a same-origin iframe. */
const writer = (tag: string) => `<!doctype html><title>${tag}</title><p id="p">${tag}</p><script>
fetch("/sink?${tag}-post", { method: "POST", body: "x" }).catch(() => {});
navigator.sendBeacon("/sink?${tag}-beacon", "x");
fetch("/sink?${tag}-keepalive", { method: "PUT", body: "x", keepalive: true }).catch(() => {});
new Worker(URL.createObjectURL(new Blob(['fetch("' + location.origin + '/sink?${tag}-worker", { method: "DELETE" }).catch(() => {})'], { type: "text/javascript" })));
const f = document.createElement("iframe"); f.src = "/frame?${tag}"; document.body.append(f);
fetch("/control?${tag}").catch(() => {});
</script>`;

before(async () => {
  site = await startRecordingServer("127.0.0.1", {
    "/a": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(writer("a")),
    "/b": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(writer("b")),
    "/w": (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(writer("w")),
    "/frame": (req, res) =>
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(`<script>fetch("/sink?${new URL(req.url ?? "/", "http://x").search.slice(1)}-frame", { method: "PATCH", body: "x" }).catch(() => {});</script>`),
    "/sink": (_req, res) => res.writeHead(204).end(),
    "/control": (_req, res) => res.writeHead(204).end(),
  });
});
after(() => site.close());

const open = (provider: ReturnType<typeof createLocalProvider>, readOnly: boolean) =>
  provider.openSession({ budgetMs: 30_000, signal: new AbortController().signal, scope: { hosts: ["127.0.0.1"], readOnly } });

async function visit(session: ProviderSession, path: string): Promise<Page> {
  const page = await session.context.newPage();
  await page.goto(`${site.origin}${path}`);
  return page;
}

/** Polls until `done` holds or the time is up; the browser's requests arrive on their own schedule. */
async function until(done: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe("local provider: a separate read_only browser", () => {
  test("the read_only browser starts only when a read_only session first opens; write and read_only sessions never share a browser; shutdown closes both", async () => {
    const chromium = findChromium(process.env);
    assert.ok(chromium !== null, "no Chromium to test with");
    const dir = mkdtempSync(join(tmpdir(), "errand-launches-"));
    const log = join(dir, "launches.log");
    const wrapper = join(dir, "chromium");
    writeFileSync(wrapper, `#!/bin/sh\necho launch >> '${log}'\nexec '${chromium}' "$@"\n`);
    chmodSync(wrapper, 0o755);
    writeFileSync(log, "");
    const launches = () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line === "launch").length;
    const provider = createLocalProvider({ env: { ...process.env, CHROME_PATH: wrapper } });
    try {
      const write = await open(provider, false);
      assert.equal(launches(), 1, "a write session started more than one browser");
      assert.equal(write.writesStopped, undefined, "a write session's browser stops writes");
      const [first, second] = await Promise.all([open(provider, true), open(provider, true)]);
      assert.equal(launches(), 2, "read_only sessions did not share one warm browser of their own");
      const browsers = [write, first, second].map((s) => s.context.browser());
      assert.notEqual(browsers[0], browsers[1], "a read_only session runs in the write browser");
      assert.equal(browsers[1], browsers[2]);
      for (const session of [write, first, second]) await session.release();
      await provider.shutdown();
      assert.deepEqual(
        browsers.map((b) => b?.isConnected()),
        [false, false, false],
        "shutdown left a browser running",
      );
    } finally {
      await provider.shutdown();
    }
  });

  test("the read_only browser fails every write of its pages, iframes and workers, counted for the session that sent it, while the write browser still writes", async () => {
    const background: BrowserStoppedWrite[] = [];
    const provider = createLocalProvider({ env: process.env, onBackgroundWriteStopped: (write) => background.push(write) });
    const sessions: ProviderSession[] = [];
    try {
      const [a, b, w] = await Promise.all([open(provider, true), open(provider, true), open(provider, false)]);
      sessions.push(a, b, w);
      await Promise.all([visit(a, "/a"), visit(b, "/b"), visit(w, "/w")]);
      // Each page's own GET arrives (so zero writes proves something), and the write page's five writes.
      await until(() => site.count("/control") >= 3 && site.count("/sink") >= 5);
      assert.equal(site.count("/control", "GET"), 3, "control: a page's own GET never reached the listener");
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const sinks = site.hits.filter((h) => h.path === "/sink");
      // The write browser is unchanged: its page's five writes arrive.
      assert.equal(sinks.length, 5, `expected exactly the write session's 5 writes at the listener: ${JSON.stringify(sinks)}`);
      const tags = (session: ProviderSession) => (session.writesStopped?.().listed ?? []).map((s) => new URL(s.url).search.slice(1)).sort();
      const all = ["beacon", "frame", "keepalive", "post", "worker"];
      // Each session is told about its own writes and no other's: the page's, its same-origin
      // iframe's (looked up in the page's frame tree, since two read_only sessions are open) and its worker's.
      assert.deepEqual(
        tags(a),
        all.map((k) => `a-${k}`),
        "session a's stopped writes",
      );
      assert.deepEqual(
        tags(b),
        all.map((k) => `b-${k}`),
        "session b's stopped writes",
      );
      assert.deepEqual(background, [], "a write was stopped but counted for no session");
      assert.deepEqual(a.writesStopped?.().count, 5);
    } finally {
      for (const session of sessions) await session.release();
      await provider.shutdown();
    }
  });
});
