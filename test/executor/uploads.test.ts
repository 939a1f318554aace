import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createExecutor } from "../../src/executor/createExecutor.js";
import { OwnerFileError } from "../../src/files/createOwnerFiles.js";
import type { OwnerFiles } from "../../src/files/createOwnerFiles.js";
import { createLocalProvider } from "../../src/providers/local/localProvider.js";
import { INVOICE_PDF, startFileSite } from "../fixtures/fileSite.js";
import type { FileSite } from "../fixtures/fileSite.js";
import { makeContext, makeTask } from "./attemptSupport.js";
import { loopbackGuard } from "./loopbackGuard.js";
import { memoryVault } from "./memoryVault.js";

const REPORT = Buffer.from("quarterly report\n");
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** The owner's files as the executor sees them: one file, REPORT, named report.txt. */
const files: OwnerFiles = {
  has: (name) => Promise.resolve(name === "report.txt"),
  read: (name) =>
    name === "report.txt" ? Promise.resolve(REPORT) : Promise.reject(new OwnerFileError("file_unknown", `The owner has no file named ${name}.`)),
};

let site: FileSite;
const provider = createLocalProvider({ env: process.env });
let execute: ReturnType<typeof createExecutor>;

before(async () => {
  site = await startFileSite("127.0.0.1", { otherOrigin: "http://127.0.0.2:9", bigBytes: 1024 });
  // Budgets are generous: the machine may be loaded.
  execute = createExecutor({
    provider,
    guard: loopbackGuard([site.origin]),
    secrets: memoryVault(),
    files,
    defaultTaskTimeoutMs: 60_000,
    defaultStepTimeoutMs: 10_000,
  });
});
after(async () => {
  await provider.shutdown();
  await site.close();
});

const write = (steps: unknown[], target = "/upload") =>
  makeTask({ target: { url: `${site.origin}${target}` }, risk: "reversible_write", approved: true, steps });

describe("upload", () => {
  test("sets a file input from the owner's file; the site receives exactly its bytes", async () => {
    const { receipt } = await execute(
      write([
        { action: "upload", selector: "#file", file: "report.txt" },
        { action: "click", selector: "#send" },
        { action: "expect_text", text: sha(REPORT), selector: "#sha" },
      ]),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.mutationBoundary, "crossed");
    assert.deepEqual(site.uploads.slice(-1), [sha(REPORT)]);
  });

  test('uploads {"download": 0}: the invoice an earlier step downloaded, byte for byte', async () => {
    const { receipt } = await execute(
      write(
        [
          { action: "click", selector: "#print" },
          { action: "goto", url: `${site.origin}/upload` },
          { action: "upload", selector: "#file", file: { download: 0 } },
          { action: "click", selector: "#send" },
          { action: "expect_text", text: sha(INVOICE_PDF), selector: "#sha" },
        ],
        "/invoice",
      ),
      makeContext(),
    );
    assert.equal(receipt.status, "PASS", JSON.stringify(receipt.error));
    assert.equal(receipt.artifacts?.[0]?.kind, "download");
    assert.deepEqual(site.uploads.slice(-1), [sha(INVOICE_PDF)]);
  });

  test("a read_only task that uploads is refused before any browser opens: nothing reaches the site", async () => {
    const before = site.count("/upload") + site.count("/upload-echo");
    const { receipt } = await execute(
      makeTask({
        target: { url: `${site.origin}/upload` },
        steps: [
          { action: "upload", selector: "#file", file: "report.txt" },
          { action: "click", selector: "#send" },
          { action: "expect_text", text: "x" },
        ],
      }),
      makeContext(),
    );
    assert.equal(receipt.status, "BLOCKED");
    assert.equal(receipt.error?.code, "upload_needs_write");
    assert.equal(site.count("/upload") + site.count("/upload-echo"), before);
  });

  test("a file the owner does not have, or a download that never happened, fails before the boundary with nothing sent", async () => {
    for (const file of ["missing.pdf", { download: 1 }]) {
      const before = site.count("/upload-echo");
      const { receipt } = await execute(
        write([
          { action: "upload", selector: "#file", file },
          { action: "click", selector: "#send" },
          { action: "expect_text", text: "x" },
        ]),
        makeContext(),
      );
      assert.equal(receipt.error?.code, "file_unknown", JSON.stringify(receipt.error));
      assert.equal(receipt.mutationBoundary, "not_crossed");
      assert.equal(site.count("/upload-echo"), before, "nothing reached the site");
    }
  });
});
