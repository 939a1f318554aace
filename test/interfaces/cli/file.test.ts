// errand file add|list|remove, in process (runCli, as main.ts calls it): list shows names and sizes,
// never the content (a canary in the file is in no stdout, stderr or --json output, and not in clear
// in errand.db or any other file under ERRAND_HOME), remove works, bad names and a file over the
// limit are refused with their codes and nothing is stored.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { OWNER_FILE_MAX_BYTES } from "../../../src/files/createOwnerFiles.js";
import type { CliRun } from "./support/runInProcess.js";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-file-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const CANARY = "Owner-File-Cli-Canary-4242";

const fileCli = (home: string, args: string[]) => errandInProcess(["file", ...args], baseEnv({ ERRAND_HOME: home }));

/** Every file under `home` that holds `needle` in its bytes. */
function filesHolding(home: string, needle: string): string[] {
  return (readdirSync(home, { recursive: true }) as string[]).filter((file) => {
    const path = join(home, file);
    return !statSync(path).isDirectory() && readFileSync(path).toString("latin1").includes(needle);
  });
}

describe("errand file", () => {
  test("add, list and remove: list shows the name and size, never the content, which is nowhere in clear under ERRAND_HOME", async () => {
    const home = join(scratch, "a");
    const source = join(scratch, "resume.pdf");
    const data = Buffer.from(`%PDF-1.4\n${CANARY}\n%%EOF\n`);
    writeFileSync(source, data);
    const sha256 = createHash("sha256").update(data).digest("hex");
    const runs: CliRun[] = [];
    const run = async (args: string[]) => {
      const result = await fileCli(home, args);
      runs.push(result);
      return result;
    };

    const add = await run(["add", "resume.pdf", source]);
    assert.equal(add.code, 0, add.stderr);
    assert.match(add.stderr, new RegExp(`file resume\\.pdf added \\(${data.length} bytes, sha256 ${sha256}\\)`));
    const addJson = await run(["add", "cover.txt", source, "--json"]);
    assert.equal(addJson.code, 0, addJson.stderr);
    assert.deepEqual((JSON.parse(addJson.stdout) as { data: unknown }).data, { name: "cover.txt", bytes: data.length, sha256, created: true });

    const list = await run(["list"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^resume\\.pdf {2}${data.length} bytes {2}sha256 ${sha256}`, "m"));
    const listJson = await run(["list", "--json"]);
    const files = (JSON.parse(listJson.stdout) as { data: { files: Array<Record<string, unknown>> } }).data.files;
    assert.deepEqual(
      files.map((f) => [f["name"], f["bytes"]]),
      [
        ["cover.txt", data.length],
        ["resume.pdf", data.length],
      ],
    );
    assert.deepEqual(Object.keys(files[0] ?? {}).sort(), ["addedAt", "bytes", "name", "sha256"]);

    const remove = await run(["remove", "cover.txt"]);
    assert.equal(remove.code, 0, remove.stderr);
    assert.match(remove.stderr, /file cover\.txt removed/);
    const removeJson = await run(["remove", "resume.pdf", "--json"]);
    assert.deepEqual((JSON.parse(removeJson.stdout) as { data: unknown }).data, { name: "resume.pdf", removed: true });
    const again = await run(["remove", "resume.pdf"]);
    assert.equal(again.code, 4);
    assert.match(again.stderr, /No file named resume\.pdf; nothing was removed\. \[file_unknown\]/);
    assert.match((await run(["list"])).stdout, /no files/);

    for (const r of runs) assert.ok(!`${r.stdout}${r.stderr}`.includes(CANARY), `${r.stdout}${r.stderr}`);
    assert.ok(existsSync(join(home, "errand.db")));
    assert.deepEqual(filesHolding(home, CANARY), []);
  });

  test("the content is not in clear in errand.db while the file is kept", async () => {
    const home = join(scratch, "b");
    const source = join(scratch, "kept.txt");
    writeFileSync(source, CANARY.repeat(50));
    assert.equal((await fileCli(home, ["add", "kept.txt", source])).code, 0);
    assert.match((await fileCli(home, ["list"])).stdout, /^kept\.txt {2}1300 bytes/m);
    assert.ok(statSync(join(home, "errand.db")).size > 0);
    assert.deepEqual(filesHolding(home, CANARY), []);
  });

  test("bad names (../x, /abs, a NUL, a backslash) and a file over the limit are refused with their codes; nothing is stored", async () => {
    const home = join(scratch, "c");
    const source = join(scratch, "small.txt");
    writeFileSync(source, CANARY);
    const keep = join(scratch, "keep.txt");
    writeFileSync(keep, "kept");
    assert.equal((await fileCli(home, ["add", "keep.txt", keep])).code, 0);
    for (const name of ["../x", "/abs", "a\u0000b", "a\\b"]) {
      const plain = await fileCli(home, ["add", name, source]);
      assert.equal(plain.code, 2, `${JSON.stringify(name)}: ${plain.stderr}`);
      assert.match(plain.stderr, /^error: NAME ".*" holds .*\[invalid_file_name\]$/m);
      const json = await fileCli(home, ["add", name, source, "--json"]);
      const error = (JSON.parse(json.stdout) as { ok: boolean; error: { code: string; message: string } }).error;
      assert.equal(error.code, "invalid_file_name");
      assert.match(error.message, /^NAME /);
      const remove = await fileCli(home, ["remove", name]);
      assert.match(remove.stderr, /\[invalid_file_name\]/);
    }
    const big = join(scratch, "big.bin");
    writeFileSync(big, "");
    truncateSync(big, OWNER_FILE_MAX_BYTES + 1);
    const tooLarge = await fileCli(home, ["add", "big.bin", big]);
    assert.equal(tooLarge.code, 2);
    assert.match(
      tooLarge.stderr,
      new RegExp(`is ${OWNER_FILE_MAX_BYTES + 1} bytes; errand keeps files of at most ${OWNER_FILE_MAX_BYTES} bytes.*\\[file_too_large\\]`),
    );
    const tooLargeJson = await fileCli(home, ["add", "big.bin", big, "--json"]);
    assert.equal((JSON.parse(tooLargeJson.stdout) as { error: { code: string } }).error.code, "file_too_large");
    const list = await fileCli(home, ["list", "--json"]);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      (JSON.parse(list.stdout) as { data: { files: Array<{ name: string }> } }).data.files.map((f) => f.name),
      ["keep.txt"],
    );
    assert.deepEqual(filesHolding(home, CANARY), []);
  });
});
