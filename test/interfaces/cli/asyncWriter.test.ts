import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createAsyncWriter } from "../../../src/interfaces/cli/asyncWriter.js";
import { plainLineAsJson } from "../../../src/interfaces/http/observability/pinoLogger.js";

describe("serve's asynchronous stderr writer", () => {
  const dir = mkdtempSync(join(tmpdir(), "errand-asyncwriter-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("returns at once and writes every line in order; flush resolves once all of it is written", async () => {
    const path = join(dir, "ordered.log");
    const fd = openSync(path, "w");
    try {
      const writer = createAsyncWriter(fd);
      const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} ${"x".repeat(i % 50)}\n`);
      for (const line of lines) writer.write(line);
      await writer.flush();
      assert.equal(readFileSync(path, "utf8"), lines.join(""));
      await writer.flush(); // nothing queued: resolves at once
    } finally {
      closeSync(fd);
    }
  });

  it("past its bound it leaves lines out and the next line written says how many", async () => {
    const path = join(dir, "bounded.log");
    const fd = openSync(path, "w");
    try {
      const writer = createAsyncWriter(fd, 100);
      writer.write(`${"a".repeat(49)}\n`); // taken for writing at once
      writer.write(`${"b".repeat(59)}\n`); // queued behind it
      writer.write(`${"c".repeat(59)}\n`); // would make 120 bytes queued: left out
      await writer.flush();
      writer.write("d\n");
      await writer.flush();
      const written = readFileSync(path, "utf8").split("\n");
      assert.deepEqual(written.slice(0, 2), ["a".repeat(49), "b".repeat(59)]);
      assert.match(written[2] ?? "", /^warning: 1 log line\(s\) left out: the log's reader fell more than 100 bytes behind$/);
      assert.equal(written[3], "d");
    } finally {
      closeSync(fd);
    }
  });

  it("with JSON logs the left-out notice is a JSON warning line like every other", async () => {
    const path = join(dir, "bounded.json.log");
    const fd = openSync(path, "w");
    try {
      const writer = createAsyncWriter(fd, 100, (line) => plainLineAsJson(line));
      writer.write(`${"a".repeat(49)}\n`);
      writer.write(`${"b".repeat(59)}\n`);
      writer.write(`${"c".repeat(59)}\n`); // left out
      await writer.flush();
      writer.write('{"level":"info","msg":"d"}\n');
      await writer.flush();
      const notice = JSON.parse(readFileSync(path, "utf8").split("\n")[2] ?? "") as Record<string, unknown>;
      assert.equal(notice["level"], "warn");
      assert.match(String(notice["msg"]), /^warning: 1 log line\(s\) left out/);
      assert.equal(typeof notice["time"], "string");
    } finally {
      closeSync(fd);
    }
  });

  it("a descriptor that cannot be written is given up without throwing, and flush still resolves", async () => {
    const path = join(dir, "readonly.log");
    writeFileSync(path, "");
    const fd = openSync(path, "r");
    try {
      const writer = createAsyncWriter(fd);
      writer.write("lost\n");
      await writer.flush();
      writer.write("also lost\n");
      writer.flushSync();
      await writer.flush();
      assert.equal(readFileSync(path, "utf8"), "");
    } finally {
      closeSync(fd);
    }
  });

  it("flushSync writes what is queued at once, for an exit that cannot wait", () => {
    const path = join(dir, "sync.log");
    const fd = openSync(path, "w");
    try {
      const writer = createAsyncWriter(fd);
      writer.write("first\n"); // in flight on the thread pool
      writer.write("second\n");
      writer.flushSync();
      assert.match(readFileSync(path, "utf8"), /second\n/);
    } finally {
      closeSync(fd);
    }
  });
});
