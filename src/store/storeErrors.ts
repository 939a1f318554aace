import { ErrandError } from "../errors/errandError.js";

/** The database was written by a newer errand: opening it with this one could corrupt it. */
export class SchemaTooNewError extends ErrandError {
  declare readonly code: "store_schema_too_new";
  constructor(
    readonly found: number,
    readonly supported: number,
    where: string,
  ) {
    super(
      "store_schema_too_new",
      `The database ${where} has schema version ${found}, but this errand understands versions up to ${supported}. Upgrade errand; do not open this database with an older one.`,
    );
  }
}

/** The database stayed locked by other processes longer than errand is willing to wait. */
export class StoreBusyError extends ErrandError {
  declare readonly code: "store_busy";
  constructor(message: string) {
    super("store_busy", message);
  }
}

/** The journal was written under another key; errand refuses to extend or read it under this one. */
export class JournalKeyMismatchError extends ErrandError {
  declare readonly code: "journal_tampered";
  constructor() {
    super(
      "journal_tampered",
      'The journal was written with a different key than the one errand holds now (ERRAND_HOME/keys/master.key); restore the original key, or, if "errand key rotate" ran on another machine sharing this database, copy its new keys/master.key here. Nothing was written.',
    );
  }
}

/** errand key rotate (or retire) refused before anything changed: the message says why and what to do. */
export class KeyRotationRefusedError extends ErrandError {
  declare readonly code: "key_rotation_refused";
  constructor(message: string) {
    super("key_rotation_refused", message);
  }
}

/**
 * The journal is still in the single-chain form errand wrote before per-operation chains, and was not
 * converted because it does not verify (or no store has opened it with its key yet). Nothing is
 * appended to it; `errand journal verify` names its first bad event.
 */
export class JournalNotConvertedError extends ErrandError {
  declare readonly code: "journal_tampered";
  constructor() {
    super(
      "journal_tampered",
      'The journal is in the single-chain form of an older errand and was not converted to per-operation chains because it does not verify; run "errand journal verify" to find the first bad event. Nothing was written.',
    );
  }
}

/**
 * A new checkpoint was refused because the stored one does not hold any more: its list is not the one
 * the head signs, or an operation it lists was deleted or rolled back to before the place it recorded.
 * Writing over it would erase the evidence; the old checkpoint stays, and `journal verify` names it.
 */
export class CheckpointRefusedError extends ErrandError {
  declare readonly code: "journal_tampered";
  constructor(reason: string) {
    super("journal_tampered", `No new checkpoint was written: ${reason}. Run "errand journal verify" to see what was changed; the last checkpoint was kept.`);
  }
}

/**
 * An operation's stored row does not match its latest journal event: someone edited the database
 * without the key. The store acts on nothing it cannot authenticate.
 */
export class OperationTamperedError extends ErrandError {
  declare readonly code: "journal_tampered";
  constructor(
    readonly operationId: string,
    readonly reason: string,
  ) {
    super(
      "journal_tampered",
      `Operation ${operationId} cannot be trusted: ${reason}. Nothing was changed; run "errand journal verify" to find the first bad event.`,
    );
  }
}

/** putArtifacts was refused: no such operation, or over the per-operation caps. Nothing was written. */
export class ArtifactRefusedError extends ErrandError {
  declare readonly code: "artifact_refused";
  constructor(message: string) {
    super("artifact_refused", message);
  }
}

/**
 * A stored row that grants authority (rows/authenticRows) fails its MAC: it was written without the
 * master key. It grants nothing; the message names the table, never the row's secret material.
 */
export class RowTamperedError extends ErrandError {
  declare readonly code: "journal_tampered";
  constructor(
    readonly table: string,
    what: string,
    fix: string,
  ) {
    super(
      "journal_tampered",
      `The stored ${what} (table ${table}) fails its MAC under the master key: it was changed without the key, so it grants nothing. ${fix} Run "errand doctor" to list every such row.`,
    );
  }

  static ownerPassword(): RowTamperedError {
    return new RowTamperedError(
      "owner_secret",
      "owner password",
      'Set the owner password again with "errand owner set-password"; until then nobody can log in as the owner.',
    );
  }
}

/** The SQLite binding did not load on this Node; the message names the Node and what to do. */
export class SqliteBindingError extends ErrandError {
  declare readonly code: "store_unavailable";
  constructor(message: string) {
    super("store_unavailable", message);
  }
}
