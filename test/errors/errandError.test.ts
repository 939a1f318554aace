// One error base: every error errand raises about its own state carries a code from the closed set,
// and the CLI turns any of them into the exit code of that code (one table, exitForFailure).
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { ConfigError } from "../../src/config/configError.js";
import { ErrandError } from "../../src/errors/errandError.js";
import { ERROR_CODES } from "../../src/errors/errorCodes.js";
import { exitForFailure } from "../../src/interfaces/cli/exitCodes.js";
import { KeyError, MissingKeyError } from "../../src/keys/loadKey.js";
import { PrivateFileError } from "../../src/keys/privateFiles.js";
import { JournalKeyMismatchError, OperationTamperedError, SchemaTooNewError, StoreBusyError } from "../../src/store/storeErrors.js";

describe("ErrandError", () => {
  test("errand's own errors share one base with a code from the closed set, and map to exit 1 by that code", () => {
    const errors: ErrandError[] = [
      new ConfigError("bad setting"),
      new PrivateFileError("loose modes"),
      new KeyError("bad key"),
      new MissingKeyError("no key"),
      new SchemaTooNewError(9, 8, "x.db"),
      new StoreBusyError("locked"),
      new JournalKeyMismatchError(),
      new OperationTamperedError("op", "edited"),
    ];
    for (const error of errors) {
      assert.ok(error instanceof ErrandError && error instanceof Error, error.constructor.name);
      assert.ok(error.code in ERROR_CODES, `${error.constructor.name}: ${error.code}`);
      assert.equal(exitForFailure(error.code), 1, error.constructor.name);
    }
    assert.deepEqual(
      errors.map((e) => e.code),
      ["configuration_error", "configuration_error", "key_error", "key_error", "store_schema_too_new", "store_busy", "journal_tampered", "journal_tampered"],
    );
  });
});
