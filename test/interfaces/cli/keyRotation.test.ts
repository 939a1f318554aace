// errand key rotate | list | retire, in process (runCli, as main.ts calls it), on a SQLite home and
// on PostgreSQL: the new key in force with 0600 files and the old one kept, everything stored still
// usable under the new key, journal verify checking the handover across the rotation, refusals that
// change nothing, retire only when told, and, attacker side, no canary in clear in any file under
// ERRAND_HOME (database, WAL, keys), in a backup, or in any output; the values sealed under the old
// key are gone from the database file and its WAL once the rotation rewrote them.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openFileStoreAt, openKeyRotationStoreAt, openSecretStoreAt } from "../../../src/app/openStores.js";
import { createResealers } from "../../../src/rotation/createResealers.js";
import type { StoreLocation } from "../../../src/app/storeLocation.js";
import { createOwnerFiles } from "../../../src/files/createOwnerFiles.js";
import { deriveSubkey, readHexKeyFile } from "../../../src/keys/loadKey.js";
import { createSealedBox } from "../../../src/keys/sealedBox.js";
import { journalSealerOf, masterKeyId } from "../../../src/rotation/masterKeyId.js";
import { createSecretRegistry } from "../../../src/secrets/createSecretRegistry.js";
import { openSqliteDatabase } from "../../../src/store/sqlite/sqliteBinding.js";
import { freshTestDatabase, testDatabase } from "../../fixtures/testPostgres.js";
import { readTask } from "../../operations/support/tasks.js";
import { canaryHaystack } from "../../secrets/support/secretSites.js";
import type { CliRun } from "./support/runInProcess.js";
import { baseEnv, errandInProcess, parseEnvelope } from "./support/runInProcess.js";

const SECRET_CANARY = "Key-Rotate-Secret-Canary-1123";
const FILE_CANARY = "Key-Rotate-File-Canary-5813";

const database = await testDatabase();
const scratch = mkdtempSync(join(tmpdir(), "errand-key-cli-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

const outputs: string[] = [];
async function errand(env: Record<string, string>, args: string[], stdin = ""): Promise<CliRun> {
  const run = await errandInProcess(args, baseEnv(env), stdin);
  outputs.push(run.stdout, run.stderr);
  return run;
}

/** Every file under `dir`, as bytes read latin1 (the database, its WAL and SHM, the keys). */
function everyFile(dir: string): [string, string][] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path): [string, string] => [path, readFileSync(path).toString("latin1")]);
}

/** Declares a secret, adds a file and creates an API token the way the owner does. */
async function populate(env: Record<string, string>): Promise<void> {
  const secret = await errand(env, ["secret", "set", "portal_pw", "--site", "https://portal.example.com"], `${SECRET_CANARY}\n`);
  assert.equal(secret.code, 0, secret.stderr);
  const source = join(scratch, `${randomUUID()}.pdf`);
  writeFileSync(source, `%PDF ${FILE_CANARY}`);
  const file = await errand(env, ["file", "add", "statement.pdf", source]);
  assert.equal(file.code, 0, file.stderr);
  rmSync(source);
  assert.equal((await errand(env, ["token", "create", "--name", "ci"])).code, 0);
}

/** The secret and the file, opened with the key the home holds now. */
async function openedWithKeyInForce(home: string, location: StoreLocation): Promise<{ secret: string | undefined; file: string }> {
  const key = readHexKeyFile(join(home, "keys", "master.key"));
  const sealer = journalSealerOf(key);
  const secrets = openSecretStoreAt(location, { sealer });
  const files = openFileStoreAt(location, { sealer });
  try {
    const secret = (
      await createSecretRegistry({ store: secrets, box: createSealedBox(deriveSubkey(key, "secrets")), env: {}, errandHome: home }).reveal("portal_pw")
    ).value;
    const file = (await createOwnerFiles(files, createSealedBox(deriveSubkey(key, "owner-files"))).read("statement.pdf")).toString();
    return { secret, file };
  } finally {
    await secrets.close();
    await files.close();
  }
}

const mode = (path: string) => statSync(path).mode & 0o777;

describe("errand key", () => {
  test("rotate on SQLite: the new key in force (0600), the old one kept, everything still opens; journal verify checks the handover; no canary in any file, backup or output, and the old ciphertext is gone", async () => {
    const home = join(scratch, "sqlite");
    const env = { ERRAND_HOME: home };
    const location: StoreLocation = { backend: "sqlite", path: join(home, "errand.db"), busyTimeoutMs: 1000 };
    await populate(env);
    const oldKey = readHexKeyFile(join(home, "keys", "master.key"));
    const oldId = masterKeyId(oldKey);
    const before = join(scratch, "before.db");
    assert.equal((await errand(env, ["backup", "--out", before])).code, 0);
    const db = openSqliteDatabase(location.path, { readonly: true });
    const oldSealed = (db.prepare("SELECT sealed FROM secrets UNION ALL SELECT sealed FROM owner_files").all() as { sealed: string }[]).map((r) => r.sealed);
    db.close();

    const rotated = await errand(env, ["key", "rotate", "--json"]);
    assert.equal(rotated.code, 0, rotated.stderr);
    const envelope = parseEnvelope(rotated.stdout);
    assert.equal(envelope.status, "rotated");
    const data = envelope.data as {
      keyId: string;
      formerKeyId: string;
      formerKeyFile: string;
      resealed: Record<string, number>;
      ended: Record<string, number>;
      reclaimed: string;
    };
    const newKey = readHexKeyFile(join(home, "keys", "master.key"));
    assert.equal(data.keyId, masterKeyId(newKey));
    assert.equal(data.formerKeyId, oldId);
    assert.notEqual(data.keyId, oldId);
    assert.deepEqual([data.resealed["secrets"], data.resealed["ownerFiles"], data.ended["apiTokens"], data.reclaimed], [1, 1, 1, "done"]);
    assert.equal(data.formerKeyFile, join(home, "keys", "former", `${oldId}.key`));
    assert.ok(readHexKeyFile(data.formerKeyFile).equals(oldKey), "the old key is kept, byte for byte");
    assert.deepEqual(
      [mode(join(home, "keys")), mode(join(home, "keys", "master.key")), mode(join(home, "keys", "former")), mode(data.formerKeyFile)],
      [0o700, 0o600, 0o700, 0o600],
    );
    assert.deepEqual(readdirSync(join(home, "keys")).sort(), ["former", "master.key"], "no next.key or rotation.lock is left");

    assert.deepEqual(await openedWithKeyInForce(home, location), { secret: SECRET_CANARY, file: `%PDF ${FILE_CANARY}` });
    const verified = await errand(env, ["journal", "verify", "--json"]);
    assert.equal(verified.code, 0, verified.stdout);
    assert.deepEqual(
      (parseEnvelope(verified.stdout).data["keyRotations"] as { fromKeyId: string; handover: string }[]).map((r) => [r.fromKeyId, r.handover]),
      [[oldId, "verified"]],
    );
    const listed = await errand(env, ["key", "list"]);
    assert.match(listed.stdout, new RegExp(`key in force: ${data.keyId}`));
    assert.match(listed.stdout, new RegExp(`${oldId} -> ${data.keyId} {2}handover verified`));
    const tokens = await errand(env, ["token", "list", "--json"]);
    assert.ok(
      (parseEnvelope(tokens.stdout).data["tokens"] as { revokedAt: string | null }[]).every((t) => t.revokedAt !== null),
      "API tokens ended with the old key",
    );

    // The backup made before the rotation restores with the former key; one made after, with the new.
    const restored = await errand({ ERRAND_HOME: join(scratch, "restored-before") }, ["restore", before, "--key-file", data.formerKeyFile]);
    assert.equal(restored.code, 0, restored.stdout + restored.stderr);
    const afterBackup = join(scratch, "after.db");
    assert.equal((await errand(env, ["backup", "--out", afterBackup])).code, 0);
    const restoredAfter = await errand({ ERRAND_HOME: join(scratch, "restored-after") }, [
      "restore",
      afterBackup,
      "--key-file",
      join(home, "keys", "master.key"),
    ]);
    assert.equal(restoredAfter.code, 0, restoredAfter.stdout + restoredAfter.stderr);
    const wrongKey = await errand({ ERRAND_HOME: join(scratch, "restored-wrong") }, ["restore", afterBackup, "--key-file", data.formerKeyFile]);
    assert.equal(wrongKey.code, 1, "a backup from after the rotation does not verify under the former key");

    // Attacker side: what a copy of the disk and the logs hold.
    const files = [...everyFile(home), [afterBackup, readFileSync(afterBackup).toString("latin1")] as [string, string]];
    const find = canaryHaystack([...files, ...outputs.map((text, i): [string, string] => [`output ${i}`, text])]);
    for (const canary of [SECRET_CANARY, FILE_CANARY]) assert.equal(find(canary), null, `${canary} is in clear`);
    const dbFiles = everyFile(home).filter(([path]) => path.startsWith(location.path));
    for (const sealed of oldSealed) {
      const holding = dbFiles.filter(([, text]) => text.includes(sealed.slice(6, 60))).map(([path]) => path);
      assert.deepEqual(holding, [], "a value sealed under the old key is still in the database file or its WAL");
    }
  });

  test("rotate refuses while an operation is unfinished, and changes nothing: same key, no key file left; once it is cancelled, the rotation goes through and the same task under its id is identity_mismatch (the new key digests it differently)", async () => {
    const home = join(scratch, "refused");
    const env = { ERRAND_HOME: home };
    await populate(env);
    const id = randomUUID();
    const file = join(scratch, `${id}.json`);
    writeFileSync(file, JSON.stringify(readTask(id)));
    assert.equal((await errand(env, ["submit", file])).code, 0);
    const key = readFileSync(join(home, "keys", "master.key"), "utf8");
    const refused = await errand(env, ["key", "rotate", "--json"]);
    assert.equal(refused.code, 1);
    const error = parseEnvelope(refused.stdout).error;
    assert.equal(error?.code, "key_rotation_refused");
    assert.match(error?.message ?? "", new RegExp(`${id} \\(queued\\)`));
    assert.equal(readFileSync(join(home, "keys", "master.key"), "utf8"), key);
    assert.deepEqual(readdirSync(join(home, "keys")), ["master.key"]);
    assert.equal((await errand(env, ["journal", "verify"])).code, 0);
    const plain = await errand(env, ["key", "rotate"]);
    assert.match(plain.stderr, /operation\(s\) are not finished: .*errand runner.*\[key_rotation_refused\]/s);

    assert.equal((await errand(env, ["cancel", id])).code, 0);
    assert.equal((await errand(env, ["key", "rotate"])).code, 0);
    const again = await errand(env, ["submit", file, "--json"]);
    assert.equal(again.code, 2);
    assert.equal(parseEnvelope(again.stdout).error?.code, "identity_mismatch");
    const inspected = await errand(env, ["inspect", id, "--json"]);
    assert.equal(parseEnvelope(inspected.stdout).status, "cancelled", "the operation itself is still there, under the new key");
  });

  test("retire: only a former key, only with --yes; afterwards journal verify says the handover is not checked; usage is checked", async () => {
    const home = join(scratch, "retire");
    const env = { ERRAND_HOME: home };
    await populate(env);
    const oldId = masterKeyId(readHexKeyFile(join(home, "keys", "master.key")));
    assert.equal((await errand(env, ["key", "rotate"])).code, 0);
    const newId = masterKeyId(readHexKeyFile(join(home, "keys", "master.key")));

    const unconfirmed = await errand(env, ["key", "retire", oldId]);
    assert.equal(unconfirmed.code, 2);
    assert.match(unconfirmed.stderr, /backups made while .* can no longer be restored/);
    assert.ok(existsSync(join(home, "keys", "former", `${oldId}.key`)), "nothing removed without --yes");
    const inForce = await errand(env, ["key", "retire", newId, "--yes", "--json"]);
    assert.equal(inForce.code, 1);
    assert.match(parseEnvelope(inForce.stdout).error?.message ?? "", /is the key in force/);
    const unknown = await errand(env, ["key", "retire", "0123456789abcdef", "--yes"]);
    assert.match(unknown.stderr, /No former key 0123456789abcdef is kept.*\[key_rotation_refused\]/);
    const malformed = await errand(env, ["key", "retire", "../master", "--yes"]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /is not a key id/);

    const retired = await errand(env, ["key", "retire", oldId, "--yes", "--json"]);
    assert.equal(retired.code, 0, retired.stdout + retired.stderr);
    assert.equal(parseEnvelope(retired.stdout).status, "retired");
    assert.deepEqual(readdirSync(join(home, "keys", "former")), []);
    const verified = await errand(env, ["journal", "verify"]);
    assert.equal(verified.code, 0);
    assert.match(verified.stdout, new RegExp(`${oldId} -> ${newId}, handover not checked: former key ${oldId} is no longer kept`));

    for (const args of [["key"], ["key", "turn"], ["key", "rotate", "extra"], ["key", "retire"], ["key", "list", "--yes"]]) {
      const run = await errand(env, args);
      assert.equal(run.code, 2, args.join(" "));
    }
    const help = await errand(env, ["help", "key"]);
    for (const word of ["rotate", "list", "retire", "keys/former/ID.key", "ONE database", "key_rotation_refused"]) assert.ok(help.stdout.includes(word), word);
  });

  test("a rotation record whose handover was not made with the former key (someone holding only the new key wrote it) fails journal verify as FORGED", async () => {
    const home = join(scratch, "forged");
    const env = { ERRAND_HOME: home };
    await populate(env);
    const oldKey = readHexKeyFile(join(home, "keys", "master.key"));
    const next = randomBytes(32);
    const old = journalSealerOf(oldKey);
    // Every MAC right under the old key but the handover, which another key made.
    const other = journalSealerOf(randomBytes(32));
    const lying = {
      ...old,
      keyHandoverMac: (journalId: string, handover: Parameters<typeof other.keyHandoverMac>[1]) => other.keyHandoverMac(journalId, handover),
    };
    const store = openKeyRotationStoreAt({ backend: "sqlite", path: join(home, "errand.db"), busyTimeoutMs: 1000 }, { sealer: old });
    try {
      await store.rotateKey({ from: lying, to: journalSealerOf(next), reseal: createResealers(oldKey, next) });
    } finally {
      await store.close();
    }
    mkdirSync(join(home, "keys", "former"), { mode: 0o700 });
    writeFileSync(join(home, "keys", "former", `${old.keyId}.key`), `${oldKey.toString("hex")}\n`, { mode: 0o600 });
    writeFileSync(join(home, "keys", "master.key"), `${next.toString("hex")}\n`, { mode: 0o600 });
    const verified = await errand(env, ["journal", "verify", "--json"]);
    assert.equal(verified.code, 1);
    const envelope = parseEnvelope(verified.stdout);
    assert.equal(envelope.status, "tampered");
    assert.match(envelope.error?.message ?? "", new RegExp(`does not carry the handover of ${old.keyId}`));
    assert.deepEqual(
      (envelope.data["keyRotations"] as { handover: string }[]).map((r) => r.handover),
      ["forged"],
    );
    const retire = await errand(env, ["key", "retire", old.keyId, "--yes"]);
    assert.equal(retire.code, 1, "a former key that is evidence of a forged rotation is not retired");
    assert.match(retire.stderr, /not made by the holder of that key/);
    const plain = await errand(env, ["journal", "verify"]);
    assert.match(plain.stdout, /TAMPERED: the key rotation recorded at .* \[key_handover\]/);
  });

  test("rotate on PostgreSQL: the new key in force there; a machine still holding the old key is refused with the fix, and works once it has the new key", async (t) => {
    if (database.skip !== undefined) return t.skip(database.skip);
    const fresh = await freshTestDatabase(database.url ?? "", "errand_test_keycli");
    try {
      const home = join(scratch, "pg");
      const env = { ERRAND_HOME: home, ERRAND_DATABASE_URL: fresh.url };
      assert.equal((await errand(env, ["migrate"])).code, 0);
      const other = join(scratch, "pg-other-machine");
      cpSync(join(home, "keys"), join(other, "keys"), { recursive: true });
      await populate(env);
      const rotated = await errand(env, ["key", "rotate", "--json"]);
      assert.equal(rotated.code, 0, rotated.stdout + rotated.stderr);
      assert.ok((parseEnvelope(rotated.stdout).data["next"] as string[])[0]?.startsWith("copy "), "it says to copy the key to the other machines");
      const location: StoreLocation = { backend: "postgres", url: fresh.url };
      assert.deepEqual(await openedWithKeyInForce(home, location), { secret: SECRET_CANARY, file: `%PDF ${FILE_CANARY}` });
      assert.equal((await errand(env, ["journal", "verify"])).code, 0);

      const otherEnv = { ERRAND_HOME: other, ERRAND_DATABASE_URL: fresh.url };
      const id = randomUUID();
      const task = join(scratch, `${id}.json`);
      writeFileSync(task, JSON.stringify(readTask(id)));
      const stale = await errand(otherEnv, ["submit", task, "--json"]);
      assert.equal(stale.code, 1);
      assert.match(parseEnvelope(stale.stdout).error?.message ?? "", /errand key rotate" ran on another machine/);
      cpSync(join(home, "keys", "master.key"), join(other, "keys", "master.key"));
      assert.equal((await errand(otherEnv, ["submit", task])).code, 0);
      assert.equal((await errand(env, ["journal", "verify"])).code, 0);
    } finally {
      await fresh.drop();
    }
  });
});
