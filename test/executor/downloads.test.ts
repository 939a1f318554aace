import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { startRecordingServer } from "../fixtures/fixtureSite.js";
import type { FixtureServer } from "../fixtures/fixtureSite.js";
import { INVOICE_PDF, startFileSite } from "../fixtures/fileSite.js";
import type { FileSite } from "../fixtures/fileSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";

/** The download bound these tests run under (ERRAND_DOWNLOAD_MAX_BYTES). Budgets are generous: the machine may be loaded. */
const MAX_BYTES = 64 * 1024;

let site: FileSite;
let other: FixtureServer;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;
/** A policy that would let the browser reach the other host: only the task's hosts keep it out. */
let executeOpen: ReturnType<typeof createExecutor>;

before(async () => {
  other = await startRecordingServer("127.0.0.2", {}, (_req, res) =>
    res.writeHead(200, { "content-type": "application/pdf", "content-disposition": "attachment" }).end(INVOICE_PDF),
  );
  site = await startFileSite("127.0.0.1", { otherOrigin: other.origin, bigBytes: 3 * MAX_BYTES });
  const options = { provider, secrets: memoryVault(), defaultTaskTimeoutMs: 60_000, defaultStepTimeoutMs: 10_000, downloadMaxBytes: MAX_BYTES };
  execute = createExecutor({ ...options, guard: loopbackGuard([site.origin]) });
  executeOpen = createExecutor({ ...options, guard: loopbackGuard([site.origin, other.origin]) });
});
after(async () => {
  await provider.shutdown();
  await site.close();
  await other.close();
});

describe("downloads are kept as artifacts", () => {
  test("a read_only task keeps the PDF its print-invoice link downloads: hash, sniffed type and step in the receipt, bytes beside it", async () => {
    const outcome = await execute(
      makeTask({
        target: { url: `${site.origin}/invoice` },
        steps: [
          { action: "click", selector: "#print" },
          { action: "expect_text", text: "Invoice 42" },
        ],
      }),
      makeContext(),
    );
    const { receipt } = outcome;
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(receipt.artifacts, [
      {
        index: 0,
        kind: "download",
        download: 0,
        step: 0,
        mediaType: "application/pdf",
        bytes: INVOICE_PDF.length,
        sha256: createHash("sha256").update(INVOICE_PDF).digest("hex"),
      },
    ]);
    assert.deepEqual(outcome.artifacts?.[0]?.data, INVOICE_PDF);
    assert.equal(receipt.network.downloadsRefused, 0);
  });

  test("a 'print invoice' link that opens a new tab answered with a PDF: the PDF is kept and the task goes on in its page; with then: follow_new_tab the step fails saying the tab downloaded a file", async () => {
    const task = (then: Record<string, unknown>) =>
      makeTask({
        target: { url: `${site.origin}/invoice` },
        steps: [
          { action: "click", selector: "#print-tab", ...then },
          { action: "expect_text", text: "Invoice 42" },
        ],
      });
    const pdf = {
      kind: "download",
      download: 0,
      step: 0,
      mediaType: "application/pdf",
      bytes: INVOICE_PDF.length,
      sha256: createHash("sha256").update(INVOICE_PDF).digest("hex"),
    };
    const stays = await execute(task({}), makeContext());
    assert.equal(stays.receipt.status, "PASS", JSON.stringify(stays.receipt.error));
    assert.deepEqual(stays.receipt.artifacts, [{ index: 0, ...pdf }]);
    assert.deepEqual(stays.artifacts?.[0]?.data, INVOICE_PDF);
    assert.equal(stays.receipt.finalUrl?.text, `${site.origin}/invoice`);

    const follows = await execute(task({ then: "follow_new_tab" }), makeContext());
    assert.equal(follows.receipt.status, "FAIL");
    assert.equal(follows.receipt.error?.step, 0);
    assert.equal(follows.receipt.error?.code, "step_failed", JSON.stringify(follows.receipt.error));
    assert.match(follows.receipt.error?.message ?? "", /downloaded a file instead of showing a page/);
    assert.deepEqual(follows.receipt.artifacts, [{ index: 0, ...pdf }], "the file is kept all the same");
    assert.equal(follows.receipt.network.navigationsBlocked, 0, "nothing left the task's hosts");
  });

  test("a download-attribute link keeps plain text, and a screenshot takes the next index", async () => {
    const { receipt, artifacts } = await execute(
      makeTask({
        target: { url: `${site.origin}/invoice` },
        evidence: { screenshots: "final" },
        steps: [
          { action: "click", selector: "#report" },
          { action: "expect_text", text: "Invoice 42" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.deepEqual(
      receipt.artifacts?.map((a) => [a.index, a.kind, a.mediaType]),
      [
        [0, "download", "text/plain"],
        [1, "screenshot", "image/png"],
      ],
    );
    assert.deepEqual(
      artifacts?.map((a) => [a.index, a.kind, a.data.length]),
      [
        [0, "download", 17],
        [1, "screenshot", receipt.artifacts?.[1]?.bytes],
      ],
    );
    assert.equal(artifacts?.[0]?.data.toString("utf8"), "total: 42.00 EUR\n");
  });
});

describe("downloads errand refuses, from the attacker's side", () => {
  test("a download past ERRAND_DOWNLOAD_MAX_BYTES is refused, counted and fails its step; nothing is kept", async () => {
    const { receipt, artifacts } = await execute(
      makeTask({
        target: { url: `${site.origin}/invoice` },
        steps: [
          { action: "click", selector: "#big" },
          { action: "expect_text", text: "Invoice 42" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "FAIL");
    assert.equal(receipt.error?.code, "download_too_large");
    assert.equal(receipt.error?.step, 0);
    assert.equal(receipt.network.downloadsRefused, 1);
    assert.equal(receipt.downloadRefusals?.[0]?.code, "download_too_large");
    assert.equal(artifacts, undefined);
    assert.equal(receipt.artifacts, undefined);
  });

  test("a download from a host the task does not name is refused before its request and counted; nothing is kept, the other host receives nothing, the task fails", async () => {
    // The download's request is the page's navigation: the task's hosts stop it (navigation_blocked) even where the network policy would let it through.
    for (const [run, code] of [
      [execute, "ip_blocked"],
      [executeOpen, "navigation_blocked"],
    ] as const) {
      const before = other.hits.length;
      const { receipt, artifacts } = await run(
        makeTask({
          target: { url: `${site.origin}/invoice` },
          steps: [
            { action: "click", selector: "#off" },
            { action: "expect_text", text: "Invoice 42" },
          ],
        }),
        makeContext(),
      );
      assert.equal(receipt.status, "FAIL");
      assert.equal(receipt.error?.code, code);
      assert.equal(artifacts, undefined);
      assert.equal(receipt.artifacts, undefined);
      assert.equal(other.hits.length, before, "the other host received nothing");
      assert.equal(receipt.network.navigationsBlocked, 1);
    }
  });
});
