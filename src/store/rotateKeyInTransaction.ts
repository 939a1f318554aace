import type { JournalSealer } from "../journal/createJournalSealer.js";
import type { JournalResigning } from "../journal/resignJournal.js";
import { recordKeyRotation, resignJournal } from "../journal/resignJournal.js";
import { verifyJournal } from "../journal/verifyJournal.js";
import type { ArtifactMediaType } from "../receipt/artifactTypes.js";
import { errorMessage } from "../errors/errorMessage.js";
import type { KeyRotationPlan, KeyRotationReport } from "./KeyRotationStore.js";
import type { SecretSourceKind } from "./SecretStore.js";
import type { OperationPhase, UnauthenticRow } from "./Store.js";
import { KeyRotationRefusedError } from "./storeErrors.js";

/** A sealed value as the rotation reads it: where it is (`key`), the fields its associated data binds, and the ciphertext. */
export interface SealedSecretRow {
  name: string;
  sites: string[];
  sourceKind: SecretSourceKind;
  sealed: string;
}
export interface SealedSessionRow {
  name: string;
  origins: string[];
  definedMs: number;
  sealed: string;
}
export interface SealedFileRow {
  name: string;
  bytes: number;
  sha256: string;
  sealed: string;
}
export interface SealedHeldResultRow {
  operationId: string;
  requestDigest: string;
  attempt: number;
  sealed: string;
}
export interface SealedArtifactRow {
  operationId: string;
  requestDigest: string;
  attempt: number;
  index: number;
  mediaType: ArtifactMediaType;
  sha256: string;
  sealed: string;
}

/**
 * What a key rotation reads and writes inside its one transaction; each backend provides it
 * (sqlite/rekeySql.ts, postgres/queries/rekey.ts) over a transaction that keeps every other writer out
 * until it commits. Reads of sealed values come one by one where a value can be large (owner files).
 */
export interface RekeyTransaction extends JournalResigning {
  /** The transaction's time on the store's clock. */
  readonly now: number;
  /** Operations that are not finished (awaiting approval, queued, running), at most `limit`. */
  unfinishedOperations(limit: number): Promise<{ operationId: string; phase: OperationPhase }[]>;
  /** Rows that grant authority and fail their MAC under `sealer`. */
  unauthenticRows(sealer: JournalSealer): Promise<UnauthenticRow[]>;
  /** Deletes held results and artifacts that expired or whose operation is gone; how many of each. */
  dropStaleEvidence(): Promise<{ heldResults: number; artifacts: number }>;
  sealedSecrets(): Promise<SealedSecretRow[]>;
  writeSecretSealed(name: string, sealed: string): Promise<void>;
  sealedSessions(): Promise<SealedSessionRow[]>;
  writeSessionSealed(name: string, sealed: string): Promise<void>;
  ownerFileNames(): Promise<string[]>;
  ownerFile(name: string): Promise<SealedFileRow | undefined>;
  writeOwnerFileSealed(name: string, sealed: string): Promise<void>;
  heldResults(): Promise<SealedHeldResultRow[]>;
  writeHeldResultSealed(operationId: string, sealed: string): Promise<void>;
  deleteHeldResult(operationId: string): Promise<void>;
  artifactKeys(): Promise<{ operationId: string; index: number }[]>;
  artifact(operationId: string, index: number): Promise<SealedArtifactRow | undefined>;
  writeArtifactSealed(operationId: string, index: number, sealed: string): Promise<void>;
  deleteArtifact(operationId: string, index: number): Promise<void>;
  /** Revokes every live API token and OAuth grant, deletes OAuth codes and tokens and the clients that authenticate with a secret. */
  endHttpCredentials(): Promise<KeyRotationReport["ended"]>;
  /** Gives every row of every table that grants authority its MAC under `sealer`; how many rows. */
  resealRows(sealer: JournalSealer): Promise<number>;
}

/** How many unfinished operations a refusal names. */
const NAMED = 5;

/**
 * The key rotation, the same on both stores, run inside the transaction `tx` gives:
 * 1. refuse when the journal head is not under `from`, when any operation is unfinished (its request
 *    digest is keyed by the key in force and is checked again before it runs or is approved), or
 *    when any row that grants authority fails its MAC under `from`;
 * 2. re-sign the journal under `to` (journal/resignJournal: it verifies the whole journal under
 *    `from` first and refuses one that does not verify);
 * 3. re-seal every secret, saved session and owner file (one that does not open refuses the
 *    rotation: the owner decides what becomes of it), and every held result and artifact (one that
 *    expired, lost its operation or does not open is deleted: it could never be served);
 * 4. end the HTTP credentials (only keyed hashes of them are kept), then MAC every row that grants
 *    authority under `to`;
 * 5. record the rotation (`key_rotated`, with the old key's handover MAC) and check the result: the
 *    journal verifies under `to` and no row fails its MAC, or the transaction is rolled back.
 * Throws KeyRotationRefusedError for a refusal; anything thrown rolls the transaction back.
 */
export async function rotateKeyInTransaction(tx: RekeyTransaction, plan: KeyRotationPlan): Promise<KeyRotationReport> {
  const { from, to, reseal } = plan;
  const head = await tx.readJournalHead();
  if (head === undefined) throw new KeyRotationRefusedError("The database holds no journal yet: there is nothing sealed under the key to rotate.");
  if (!from.macEquals(from.keyId, head.keyId)) {
    throw new KeyRotationRefusedError(
      `The journal is not under the key in ERRAND_HOME/keys/master.key (the journal names key ${head.keyId}, the file holds ${from.keyId}): nothing was rotated. Put the right key back first.`,
    );
  }
  if (from.macEquals(from.keyId, to.keyId)) throw new KeyRotationRefusedError("The new key is the key in force: nothing was rotated.");

  const unfinished = await tx.unfinishedOperations(NAMED + 1);
  if (unfinished.length > 0) {
    const named = unfinished
      .slice(0, NAMED)
      .map((op) => `${op.operationId} (${op.phase})`)
      .join(", ");
    throw new KeyRotationRefusedError(
      `${unfinished.length > NAMED ? `More than ${NAMED}` : unfinished.length} operation(s) are not finished: ${named}. Their request digests are keyed by the key in force and are checked again before they run or are approved, so errand rotates only with none pending: stop "errand serve" and runners, run the queue ("errand runner"), approve, deny or cancel what waits, then rotate.`,
    );
  }
  const refused = await tx.unauthenticRows(from);
  if (refused.length > 0) {
    throw new KeyRotationRefusedError(
      `${refused.length} stored row(s) that grant authority fail their MAC under the key in force (${refused.map((r) => `${r.table} ${r.id}`).join("; ")}): re-signing them would bless a change made without the key. Run "errand doctor", fix or remove them, then rotate.`,
    );
  }

  const resigned = await resignJournal(tx, from, to);
  if (!resigned.ok) {
    const { fault, message, operationId } = resigned.verdict;
    throw new KeyRotationRefusedError(
      `The journal does not verify under the key in force (${fault}${operationId === null ? "" : `, operation ${operationId}`}: ${message}); re-signing it would bless that. Run "errand journal verify"; nothing was rotated.`,
    );
  }

  const sealedValue = (what: string, fix: string, make: () => string): string => {
    try {
      return make();
    } catch (error) {
      throw new KeyRotationRefusedError(
        `${what} does not open under the key in force (${errorMessage(error)}): it was stored under another key or changed without it. ${fix} Nothing was rotated.`,
      );
    }
  };
  const resealed = { secrets: 0, siteSessions: 0, ownerFiles: 0, heldResults: 0, artifacts: 0 };
  for (const secret of await tx.sealedSecrets()) {
    await tx.writeSecretSealed(
      secret.name,
      sealedValue(
        `The declared secret ${secret.name}`,
        `Declare it again (errand secret set ${secret.name} ...) or delete it (errand secret delete ${secret.name}), then rotate.`,
        () => reseal.secret(secret.sealed, secret),
      ),
    );
    resealed.secrets += 1;
  }
  for (const session of await tx.sealedSessions()) {
    await tx.writeSessionSealed(
      session.name,
      sealedValue(
        `The saved session of site ${session.name}`,
        `Define the site again (errand site add ${session.name} ..., which drops its session) or remove it, then rotate.`,
        () => reseal.siteSession(session.sealed, session),
      ),
    );
    resealed.siteSessions += 1;
  }
  for (const name of await tx.ownerFileNames()) {
    const file = await tx.ownerFile(name);
    if (file === undefined) continue;
    await tx.writeOwnerFileSealed(
      name,
      sealedValue(`The owner file ${name}`, `Add it again (errand file add ${name} PATH) or remove it (errand file remove ${name}), then rotate.`, () =>
        reseal.ownerFile(file.sealed, file),
      ),
    );
    resealed.ownerFiles += 1;
  }
  const dropped = await tx.dropStaleEvidence();
  for (const held of await tx.heldResults()) {
    const next = resealedOrNull(() => reseal.heldResult(held.sealed, held));
    if (next === null) {
      await tx.deleteHeldResult(held.operationId);
      dropped.heldResults += 1;
    } else {
      await tx.writeHeldResultSealed(held.operationId, next);
      resealed.heldResults += 1;
    }
  }
  for (const { operationId, index } of await tx.artifactKeys()) {
    const artifact = await tx.artifact(operationId, index);
    const next = artifact === undefined ? null : resealedOrNull(() => reseal.artifact(artifact.sealed, artifact));
    if (next === null) {
      await tx.deleteArtifact(operationId, index);
      dropped.artifacts += 1;
    } else {
      await tx.writeArtifactSealed(operationId, index, next);
      resealed.artifacts += 1;
    }
  }

  const ended = await tx.endHttpCredentials();
  const rows = await tx.resealRows(to);
  const report: KeyRotationReport = {
    fromKeyId: from.keyId,
    toKeyId: to.keyId,
    atMs: tx.now,
    resealed,
    dropped,
    resigned: { events: resigned.events, operations: resigned.operations, tombstones: resigned.tombstones, rows },
    ended,
  };
  await recordKeyRotation(
    tx,
    { from, to, oldHead: resigned.oldHead, head: resigned.head, atMs: tx.now },
    { resealed, dropped, resigned: report.resigned, ended },
  );

  const after = await verifyJournal(tx, to);
  if (!after.ok) throw new Error(`the journal re-signed under the new key does not verify (${after.fault}: ${after.message}); the rotation was rolled back`);
  const failing = await tx.unauthenticRows(to);
  if (failing.length > 0) throw new Error(`${failing.length} row(s) fail their MAC under the new key after re-signing; the rotation was rolled back`);
  return report;
}

/** The re-sealed value, or null when it does not open (evidence that could never be served). */
function resealedOrNull(make: () => string): string | null {
  try {
    return make();
  } catch {
    return null;
  }
}
