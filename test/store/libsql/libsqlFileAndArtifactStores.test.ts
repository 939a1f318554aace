// The FileStore and ArtifactStore on libSQL (@libsql/client, file:): owner files added, replaced,
// listed and removed; an operation's artifacts replaced per attempt, refused for an unknown
// operation or over the caps, hidden once expired and dropped when expired or orphaned.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createJournalSealer } from "../../../src/journal/createJournalSealer.js";
import { openLibsqlArtifactStore } from "../../../src/store/libsql/openLibsqlArtifactStore.js";
import { openLibsqlTestClient } from "../../fixtures/libsqlTestClient.js";
import { openLibsqlFileStore } from "../../../src/store/libsql/openLibsqlFileStore.js";
import { openLibsqlStore } from "../../../src/store/libsql/openLibsqlStore.js";
import type { NewArtifact } from "../../../src/store/ArtifactStore.js";
import { ArtifactRefusedError } from "../../../src/store/storeErrors.js";

const T0 = Date.UTC(2026, 0, 1);

test("libsql file and artifact stores keep what they are given, replace it whole, and forget what expired", async () => {
  const home = mkdtempSync(join(tmpdir(), "errand-libsql-files-"));
  const url = pathToFileURL(join(home, "errand.db")).href;
  const sealer = createJournalSealer(randomBytes(32));
  const clock = { now: T0 };
  const options = { where: url, sealer, clock: () => clock.now };
  const store = await openLibsqlStore({ client: await openLibsqlTestClient({ url }), ...options });
  const files = await openLibsqlFileStore({ client: await openLibsqlTestClient({ url }), ...options });
  const artifacts = await openLibsqlArtifactStore({ client: await openLibsqlTestClient({ url }), ...options });
  try {
    assert.deepEqual(await files.putFile({ name: "cv.pdf", bytes: 3, sha256: "s1", sealed: "sealed-1" }), { created: true });
    clock.now += 5;
    assert.deepEqual(await files.putFile({ name: "cv.pdf", bytes: 4, sha256: "s2", sealed: "sealed-2" }), { created: false });
    assert.deepEqual(await files.readFile("cv.pdf"), { name: "cv.pdf", bytes: 4, sha256: "s2", sealed: "sealed-2", createdMs: T0 + 5 });
    assert.deepEqual(await files.listFiles(), [{ name: "cv.pdf", bytes: 4, sha256: "s2", createdMs: T0 + 5 }]);
    assert.equal(await files.removeFile("cv.pdf"), true);
    assert.equal(await files.removeFile("cv.pdf"), false);
    assert.equal(await files.readFile("cv.pdf"), null);

    const operationId = randomUUID();
    await store.createOperation({ operationId, requestDigest: "hmac-sha256:x", risk: "read_only", maxAttempts: 1, taskJson: "{}", details: {} }, 1 << 30);
    const png = (index: number): NewArtifact => ({ index, mediaType: "image/png", bytes: 10, sha256: `sha-${index}`, sealed: `sealed-${index}` });
    await artifacts.putArtifacts({ operationId, attempt: 1, expiresMs: clock.now + 1000, artifacts: [png(0), png(1)] });
    await artifacts.putArtifacts({ operationId, attempt: 2, expiresMs: clock.now + 1000, artifacts: [png(0)] });
    assert.equal((await artifacts.readArtifact(operationId, 0))?.attempt, 2, "a later attempt replaces the earlier one's artifacts");
    assert.equal(await artifacts.readArtifact(operationId, 1), undefined);
    await assert.rejects(artifacts.putArtifacts({ operationId: randomUUID(), attempt: 1, expiresMs: null, artifacts: [png(0)] }), ArtifactRefusedError);
    await assert.rejects(
      artifacts.putArtifacts({ operationId, attempt: 3, expiresMs: null, artifacts: Array.from({ length: 9 }, (_, i) => png(i)) }),
      ArtifactRefusedError,
    );
    assert.equal((await artifacts.readArtifact(operationId, 0))?.attempt, 2, "a refused batch changes nothing");
    clock.now += 1000;
    assert.equal(await artifacts.readArtifact(operationId, 0), undefined, "an expired artifact is never served");
    assert.equal(await artifacts.dropExpiredArtifacts(), 1);
  } finally {
    await Promise.all([files.close(), artifacts.close(), store.close()]);
    rmSync(home, { recursive: true, force: true });
  }
});
