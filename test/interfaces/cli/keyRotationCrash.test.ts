// A key rotation stopped part-way leaves exactly one key fully in force: the old one if the database
// did not commit, the new one if it did, settled by the next errand command (runCli runs
// rotation/settleInterruptedRotation first). Each state a crash can leave is made by hand and
// settled; then `errand key rotate` runs as a real process on a home with a few hundred operations
// and is killed with SIGKILL at moments from just after it wrote its new key to just after it
// committed, and every time the next command finds one key in force, the journal intact under it,
// and the secret and the file opening with it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { openFileStoreAt, openKeyRotationStoreAt, openSecretStoreAt, readJournalKeyIdAt } from "../../../src/app/openStores.js";
import type { StoreLocation } from "../../../src/app/storeLocation.js";
import { createOwnerFiles } from "../../../src/files/createOwnerFiles.js";
import { deriveSubkey, readHexKeyFile } from "../../../src/keys/loadKey.js";
import { formerKeyPath, pendingKeyPath, rotationLockPath, writePendingKey } from "../../../src/keys/rotationKeyFiles.js";
import { createSealedBox } from "../../../src/keys/sealedBox.js";
import { createResealers } from "../../../src/rotation/createResealers.js";
import { journalSealerOf, masterKeyId } from "../../../src/rotation/masterKeyId.js";
import { createSecretRegistry } from "../../../src/secrets/createSecretRegistry.js";
import { cleanEnv } from "../../support/errandProcess.js";
import { createFakeExecutor } from "../../operations/support/fakeExecutor.js";
import { openHarness } from "../../operations/support/harness.js";
import { readTask } from "../../operations/support/tasks.js";
import { baseEnv, errandInProcess } from "./support/runInProcess.js";

const MAIN = fileURLToPath(new URL("../../../src/interfaces/cli/main.ts", import.meta.url));
const TSX = import.meta.resolve("tsx");
const SECRET = "Crash-Secret-Value-2718";
const FILE = "%PDF crash file";
const OPERATIONS = 300;

const scratch = mkdtempSync(join(tmpdir(), "errand-key-crash-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
const template = join(scratch, "template");

before(async () => {
  const h = await openHarness({ home: template, execute: createFakeExecutor().execute });
  try {
    for (let i = 0; i < OPERATIONS; i += 1) await h.service.submit(readTask(randomUUID()));
    await h.service.runQueue();
    await h.secrets().set("portal_pw", ["https://portal.example.com"], { kind: "stored", value: SECRET });
    await h.files().add("statement.pdf", Buffer.from(FILE));
  } finally {
    await h.close();
  }
});

function copyOfTemplate(): { home: string; location: StoreLocation; oldKey: Buffer } {
  const home = join(scratch, randomUUID());
  cpSync(template, home, { recursive: true });
  return {
    home,
    location: { backend: "sqlite", path: join(home, "errand.db"), busyTimeoutMs: 1000 },
    oldKey: readHexKeyFile(join(home, "keys", "master.key")),
  };
}

/** A pid no process has now: one that just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  assert.ok(child.pid !== undefined);
  return child.pid;
}

/** keys/rotation.lock as the rotation process `pid` on this host left it. */
function lockAs(home: string, pid: number): void {
  writeFileSync(rotationLockPath(home), `${pid}@${hostname()}\n`, { mode: 0o600 });
}

/**
 * The next command settles, and then exactly one key is fully in force: the journal verifies under
 * keys/master.key, its head names that key, the secret and the file open with it, no rotation file is
 * left, and when it is a new key the old one is kept as keys/former/ID.key. Returns which key it is.
 */
async function oneKeyInForce(home: string, location: StoreLocation, oldKey: Buffer): Promise<{ outcome: "old" | "new"; stderr: string }> {
  const verify = await errandInProcess(["journal", "verify"], baseEnv({ ERRAND_HOME: home }));
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  const key = readHexKeyFile(join(home, "keys", "master.key"));
  assert.equal(await readJournalKeyIdAt(location), masterKeyId(key));
  assert.ok(!existsSync(pendingKeyPath(home)) && !existsSync(rotationLockPath(home)), `rotation files left: ${readdirSync(join(home, "keys")).join(", ")}`);
  const sealer = journalSealerOf(key);
  const secrets = openSecretStoreAt(location, { sealer });
  const files = openFileStoreAt(location, { sealer });
  try {
    assert.equal(
      (await createSecretRegistry({ store: secrets, box: createSealedBox(deriveSubkey(key, "secrets")), env: {}, errandHome: home }).reveal("portal_pw")).value,
      SECRET,
    );
    assert.equal((await createOwnerFiles(files, createSealedBox(deriveSubkey(key, "owner-files"))).read("statement.pdf")).toString(), FILE);
  } finally {
    await secrets.close();
    await files.close();
  }
  if (key.equals(oldKey)) return { outcome: "old", stderr: verify.stderr };
  assert.ok(readHexKeyFile(formerKeyPath(home, masterKeyId(oldKey))).equals(oldKey), "the old key is kept as a former key");
  return { outcome: "new", stderr: verify.stderr };
}

/** The database rotated to `next` (its one transaction committed), the key files not yet switched. */
async function commitOnly(home: string, location: StoreLocation, oldKey: Buffer): Promise<Buffer> {
  const next = writePendingKey(home);
  const store = openKeyRotationStoreAt(location, { sealer: journalSealerOf(oldKey) });
  try {
    await store.rotateKey({ from: journalSealerOf(oldKey), to: journalSealerOf(next), reseal: createResealers(oldKey, next) });
  } finally {
    await store.close();
  }
  return next;
}

describe("a key rotation stopped part-way", () => {
  test("stopped after it wrote its new key, before the database committed: the old key stays in force and the new one is forgotten", async () => {
    const { home, location, oldKey } = copyOfTemplate();
    lockAs(home, await deadPid());
    writePendingKey(home);
    const settled = await oneKeyInForce(home, location, oldKey);
    assert.equal(settled.outcome, "old");
    assert.match(settled.stderr, /stopped before the database committed; nothing changed/);
  });

  test("stopped after its new key was in force, before it let go of its lock: the next command removes the dead holder's lock", async () => {
    const { home, location, oldKey } = copyOfTemplate();
    lockAs(home, await deadPid());
    const settled = await oneKeyInForce(home, location, oldKey);
    assert.equal(settled.outcome, "old", "the key in force is the one in keys/master.key");
  });

  test("stopped after the database committed, before the key files switched (and half-way through switching them): the new key is put in force", async () => {
    for (const halfway of [false, true]) {
      const { home, location, oldKey } = copyOfTemplate();
      lockAs(home, await deadPid());
      const next = await commitOnly(home, location, oldKey);
      if (halfway) {
        // The old key already kept as a former key, keys/next.key not yet renamed.
        mkdirSync(join(home, "keys", "former"), { mode: 0o700 });
        cpSync(join(home, "keys", "master.key"), formerKeyPath(home, masterKeyId(oldKey)));
      }
      const settled = await oneKeyInForce(home, location, oldKey);
      assert.equal(settled.outcome, "new", `halfway ${halfway}`);
      assert.ok(readHexKeyFile(join(home, "keys", "master.key")).equals(next));
      assert.match(settled.stderr, /stopped after the database committed to the new key/);
    }
  });

  test("while a rotation runs (its lock's process is alive), another command touches nothing and uses the key in force; once that process is gone, the next command settles", async () => {
    const { home, location, oldKey } = copyOfTemplate();
    const runner = spawn("sleep", ["60"], { stdio: "ignore" });
    try {
      assert.ok(runner.pid !== undefined);
      lockAs(home, runner.pid);
      writePendingKey(home);
      const during = await errandInProcess(["journal", "verify"], baseEnv({ ERRAND_HOME: home }));
      assert.equal(during.code, 0, during.stdout + during.stderr);
      assert.match(during.stderr, new RegExp(`a key rotation is running \\(process ${runner.pid}`));
      assert.ok(existsSync(pendingKeyPath(home)) && existsSync(rotationLockPath(home)), "a running rotation's files are left alone");
      const concurrent = await errandInProcess(["key", "rotate", "--json"], baseEnv({ ERRAND_HOME: home }));
      assert.equal(concurrent.code, 1);
      assert.match(concurrent.stdout, /Another key rotation holds keys\/rotation.lock/);
    } finally {
      runner.kill("SIGKILL");
      await new Promise((resolve) => runner.on("exit", resolve));
    }
    assert.equal((await oneKeyInForce(home, location, oldKey)).outcome, "old");
  });

  test("a journal under neither key refuses, changing nothing", async () => {
    const { home, oldKey } = copyOfTemplate();
    lockAs(home, await deadPid());
    writePendingKey(home);
    const other = randomBytes(32);
    const location: StoreLocation = { backend: "sqlite", path: join(home, "errand.db"), busyTimeoutMs: 1000 };
    const store = openKeyRotationStoreAt(location, { sealer: journalSealerOf(oldKey) });
    await store.rotateKey({ from: journalSealerOf(oldKey), to: journalSealerOf(other), reseal: createResealers(oldKey, other) });
    await store.close();
    const run = await errandInProcess(["journal", "verify", "--json"], baseEnv({ ERRAND_HOME: home }));
    assert.equal(run.code, 1);
    assert.match(run.stdout, new RegExp(`under key ${masterKeyId(other)}: neither keys/master.key`));
    assert.ok(existsSync(pendingKeyPath(home)), "nothing is removed");
  });

  test("errand key rotate killed with SIGKILL at moments from its new key to its commit: each time, exactly one key is fully in force", async (t) => {
    const outcomes: string[] = [];
    // After next.key appears: at once, then later and later into the one transaction; "former" kills as soon as the old key is being kept (after the commit).
    const moments: (number | "former")[] = [0, 40, 120, 250, 400, 700, "former"];
    let measured = 0;
    {
      const { home, location, oldKey } = copyOfTemplate();
      const started = Date.now();
      const whole = await runRotate(home, undefined);
      measured = Date.now() - started;
      assert.equal(whole.code, 0, whole.stderr);
      assert.equal((await oneKeyInForce(home, location, oldKey)).outcome, "new");
    }
    for (const moment of moments) {
      const { home, location, oldKey } = copyOfTemplate();
      const run = await runRotate(home, moment);
      const settled = await oneKeyInForce(home, location, oldKey);
      outcomes.push(`${String(moment)}: ${run.killed ? "killed" : "finished"}, ${settled.outcome} key in force`);
    }
    t.diagnostic(`a whole rotation of ${OPERATIONS} operations as a process: ${measured} ms; ${outcomes.join("; ")}`);
  });
});

/** Runs `errand key rotate` as a process; with a moment, SIGKILLs it that many ms after keys/next.key appears (or when keys/former appears). */
function runRotate(home: string, moment: number | "former" | undefined): Promise<{ code: number | null; stderr: string; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", TSX, MAIN, "key", "rotate"], {
      env: cleanEnv({ ERRAND_HOME: home }),
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    let killed = false;
    let exited = false;
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      exited = true;
      resolve({ code, stderr, killed });
    });
    if (moment === undefined) return;
    void (async () => {
      const watched = moment === "former" ? join(home, "keys", "former") : pendingKeyPath(home);
      while (!exited && !existsSync(watched)) await sleep(1);
      if (typeof moment === "number" && moment > 0) await sleep(moment);
      if (!exited) {
        killed = true;
        child.kill("SIGKILL");
      }
    })();
  });
}
