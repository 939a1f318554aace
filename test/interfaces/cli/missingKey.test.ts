// A missing master.key is never replaced by a new one behind the owner's back: read commands never
// create a key, and no command creates one next to an existing database (a new key could verify
// nothing stored there). Each refusal names the file and the fix, and leaves the home as it was.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { readTask } from "../../operations/support/tasks.js";
import { errandInProcess, parseEnvelope } from "./support/runInProcess.js";

const scratch = mkdtempSync(join(tmpdir(), "errand-missing-key-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const run = (home: string, args: string[]) => errandInProcess(args, { PATH: process.env["PATH"] ?? "", ERRAND_HOME: home });

/** Every command that only reads what is stored, with the arguments it needs. */
function readCommands(operationId: string): string[][] {
  return [
    ["journal", "verify"],
    ["journal", "compact", "--older-than", "30d"],
    ["inspect", operationId],
    ["collect", operationId],
    ["status"],
    ["provider", "list"],
    ["secret", "list"],
    ["token", "list"],
  ];
}

/** Commands that report on the home: an unused one reads as empty (no key or database is created). */
const REPORTS = [["status"], ["provider", "list"]];

describe("a missing master key", () => {
  test("next to an existing database: every read command and submit refuse with key_error naming the file and the fix, and create no key", async () => {
    const home = join(scratch, "has-db");
    const id = randomUUID();
    const file = join(scratch, `${id}.json`);
    writeFileSync(file, JSON.stringify(readTask(id)));
    const submitted = await run(home, ["submit", file, "--json"]);
    assert.equal(submitted.code, 0, submitted.stderr);
    const keyFile = join(home, "keys", "master.key");
    unlinkSync(keyFile);

    for (const args of [...readCommands(id), ["submit", file]]) {
      const refused = await run(home, [...args, "--json"]);
      const envelope = parseEnvelope(refused.stdout);
      assert.equal(refused.code, 1, `${args.join(" ")}: ${refused.stdout}`);
      assert.equal(envelope.error?.code, "key_error", args.join(" "));
      assert.ok(envelope.error.message.includes(keyFile), `${args.join(" ")} names the key file`);
      assert.match(envelope.error.message, /will not create a new key/);
      assert.match(envelope.error.message, /errand restore --key-file/);
      assert.equal(existsSync(keyFile), false, `${args.join(" ")} created no key`);
    }
    const human = await run(home, ["journal", "verify"]);
    assert.equal(human.code, 1);
    assert.match(human.stderr, /key_error/);
    assert.ok(human.stderr.includes(keyFile));
  });

  test("in a home with nothing stored: read commands refuse and create neither a key nor a database; status and provider list report it empty; submit starts the home", async () => {
    const home = join(scratch, "empty");
    const id = randomUUID();
    const untouched = (args: string[]) => assert.ok(!existsSync(home) || readdirSync(home).length === 0, `${args.join(" ")} left the home empty`);
    for (const args of REPORTS) {
      const reported = await run(home, [...args, "--json"]);
      assert.equal(reported.code, 0, `${args.join(" ")}: ${reported.stdout}${reported.stderr}`);
      assert.equal(parseEnvelope(reported.stdout).ok, true);
      untouched(args);
    }
    const status = parseEnvelope((await run(home, ["status", "--json"])).stdout) as unknown as {
      data: { store: { phases: Record<string, number> }; journal: { seq: number } };
    };
    assert.ok(Object.values(status.data.store.phases).every((n) => n === 0) && status.data.journal.seq === 0, "an unused home reports zeros");
    for (const args of readCommands(id).filter((a) => !REPORTS.some((r) => r.join(" ") === a.join(" ")))) {
      const refused = await run(home, [...args, "--json"]);
      assert.equal(refused.code, 1, `${args.join(" ")}: ${refused.stdout}`);
      const envelope = parseEnvelope(refused.stdout);
      assert.equal(envelope.error?.code, "key_error");
      assert.match(envelope.error.message, /holds no database/);
      untouched(args);
    }
    const file = join(scratch, `${id}.json`);
    writeFileSync(file, JSON.stringify(readTask(id)));
    const submitted = await run(home, ["submit", file, "--json"]);
    assert.equal(submitted.code, 0, submitted.stdout);
    assert.ok(existsSync(join(home, "keys", "master.key")));
    const inspected = await run(home, ["inspect", id, "--json"]);
    assert.equal(inspected.code, 0, inspected.stdout);
  });
});
