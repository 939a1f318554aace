import { openSync, readFileSync, writeSync, closeSync, constants, existsSync } from "node:fs";
import { randomBytes, hkdfSync } from "node:crypto";
import { join } from "node:path";
import { ErrandError } from "../errors/errandError.js";
import { MIN_KEY_BYTES } from "../task/requestDigest.js";
import { securePrivateDirectory, securePrivateFile } from "./privateFiles.js";
import { errorMessage } from "../errors/errorMessage.js";

/** A key problem the CLI turns into exit 2 with code key_error. */
export class KeyError extends ErrandError {
  declare readonly code: "key_error";
  constructor(message: string) {
    super("key_error", message);
  }
}

/** The master key file is missing where one is needed: errand's state to fix (exit 1), not the caller's input. */
export class MissingKeyError extends KeyError {}

const HEX_KEY = /^(?:[0-9a-fA-F]{2})+$/;

/** Reads a hex key file; surrounding whitespace and a trailing newline are ignored. */
export function readHexKeyFile(path: string): Buffer {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    throw new KeyError(`Cannot read key file ${path}.`);
  }
  if (!HEX_KEY.test(text)) throw new KeyError(`Key file ${path} must hold the key as hexadecimal digits only.`);
  const key = Buffer.from(text, "hex");
  if (key.length < MIN_KEY_BYTES) throw new KeyError(`Key file ${path} holds ${key.length} bytes; at least ${MIN_KEY_BYTES} are required.`);
  return key;
}

/** Where the master key lives. */
export function masterKeyPath(errandHome: string): string {
  return join(errandHome, "keys", "master.key");
}

/**
 * The master key: ERRAND_HOME/keys/master.key, created on first use with 32 random bytes and mode 0600.
 * Creation uses O_EXCL so two processes starting together cannot write different keys. ERRAND_HOME
 * and keys/ are made 0700 (also when they already existed), and an existing key file 0600.
 */
export function loadOrCreateMasterKey(errandHome: string): Buffer {
  return loadMasterKey(errandHome, { create: true });
}

/**
 * The master key, created only when `create` is true. Otherwise a missing key file is a KeyError
 * whose message is `missing` (say which file and what to do): a key made up now could verify
 * nothing already stored and would sign a journal nobody else can check.
 */
export function loadMasterKey(errandHome: string, options: { create: true } | { create: false; missing: string }): Buffer {
  const dir = join(errandHome, "keys");
  const file = masterKeyPath(errandHome);
  if (!options.create) {
    if (!existsSync(file)) throw new MissingKeyError(options.missing);
    securePrivateDirectory(errandHome);
    securePrivateDirectory(dir);
    securePrivateFile(file, false);
    return readHexKeyFile(file);
  }
  securePrivateDirectory(errandHome);
  securePrivateDirectory(dir);
  try {
    const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      writeSync(fd, `${randomBytes(32).toString("hex")}\n`);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) {
      throw new KeyError(`Cannot create key file ${file}: ${errorMessage(error)}`);
    }
  }
  securePrivateFile(file, false);
  return readHexKeyFile(file);
}

/**
 * The request-digest key is the master key itself (so a key file given with --key-file reproduces
 * digests directly); every other purpose derives its own subkey with HKDF and a purpose label.
 */
export function deriveSubkey(master: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", master, new Uint8Array(0), `errand/subkey/${purpose}`, 32));
}
