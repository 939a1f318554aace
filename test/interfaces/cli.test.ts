// The errand CLI: exit codes, exact output shapes, key handling and error lines. Commands run in
// process (runCli with captured streams); test/interfaces/cli/mainProcess.test.ts proves the real
// process (main.ts) is the same thing. Every run gets its own ERRAND_HOME (or HOME) under a temp dir; nothing
// leaves the machine.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { COMMANDS } from "../../src/interfaces/cli/commands/index.js";
import { baseEnv, errandInProcess } from "./cli/support/runInProcess.js";

const VECTORS = JSON.parse(readFileSync(new URL("../../contracts/v1/vectors/request-digest-v1.json", import.meta.url), "utf8")) as {
  keyHex: string;
  vectors: Array<{ name: string; input: unknown; normalized: unknown; requestDigest: string }>;
};
const RFC8785 = new URL("../fixtures/rfc8785/cyberphone/", import.meta.url);

const scratch = mkdtempSync(join(tmpdir(), "errand-cli-test-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
/** A fresh directory under the scratch dir. */
function freshDir(name: string): string {
  counter += 1;
  const dir = join(scratch, `${counter}-${name}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

function writeScratch(name: string, content: string): string {
  const file = join(freshDir("file"), name);
  writeFileSync(file, content);
  return file;
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `errand ...args` in process with a private ERRAND_HOME unless the caller supplies the environment. */
function errand(args: string[], options: { stdin?: string; env?: Record<string, string> } = {}): Promise<Run> {
  return errandInProcess(args, baseEnv(options.env ?? { ERRAND_HOME: join(freshDir("home"), ".errand") }), options.stdin ?? "");
}

const STACK_LINE = /^\s+at .+[:(]/m;

function assertNoStack(run: Run): void {
  assert.doesNotMatch(run.stderr, STACK_LINE, `no stack trace without --debug:\n${run.stderr}`);
  assert.doesNotMatch(run.stdout, STACK_LINE);
}

const VALID_TASK = {
  schemaVersion: "errand.task.v1",
  operationId: "3F0C6A52-6C1E-4A8E-9C39-2B1C1F1D4E55",
  target: { url: "HTTPS://Example.COM" },
  risk: "read_only",
  steps: [{ action: "expect_text", text: "Example Domain" }],
};
const NORMALIZED = {
  schemaVersion: "errand.task.v1",
  operationId: "3f0c6a52-6c1e-4a8e-9c39-2b1c1f1d4e55",
  target: { url: "https://example.com/" },
  allowedHosts: [],
  risk: "read_only",
  approved: false,
  secretApproval: false,
  evidenceRetention: "minimal",
  provider: "auto",
  steps: [{ action: "expect_text", text: "Example Domain", match: "contains" }],
};
/** Three problems; the third is the issue's own example path. */
const INVALID_TASK = {
  ...VALID_TASK,
  risk: "consequential",
  script: "alert(1)",
  steps: [
    { action: "goto", url: "https://example.com/a" },
    { action: "click", selector: "#b" },
    { action: "wait_for", selector: "#c" },
    { action: "extract_attribute", selector: "#password", attribute: " Value ", name: "pw" },
  ],
};
const INVALID_PROBLEMS = [
  { code: "unknown_field", path: "/script" },
  { code: "value_attribute_forbidden", path: "/steps/3/attribute" },
  { code: "approval_required", path: "/approved" },
];

describe("errand validate", { concurrency: 3 }, () => {
  test("a valid file: exit 0, the normalized task on stdout, nothing on stderr", async () => {
    const run = await errand(["validate", writeScratch("task.json", JSON.stringify(VALID_TASK))]);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, "");
    assert.deepEqual(JSON.parse(run.stdout), NORMALIZED);
    assert.equal(run.stdout, `${JSON.stringify(NORMALIZED, null, 2)}\n`);
  });

  test("- reads the task from standard input", async () => {
    const run = await errand(["validate", "-"], { stdin: JSON.stringify(VALID_TASK) });
    assert.equal(run.code, 0);
    assert.deepEqual(JSON.parse(run.stdout), NORMALIZED);
  });

  test("an invalid task: exit 2, one line per problem on stderr, nothing on stdout", async () => {
    const run = await errand(["validate", "-"], { stdin: JSON.stringify(INVALID_TASK) });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    const lines = run.stderr.trimEnd().split("\n");
    assert.equal(lines.length, INVALID_PROBLEMS.length, run.stderr);
    INVALID_PROBLEMS.forEach(({ code, path }, i) => {
      assert.ok(lines[i]!.startsWith(`error ${path}: `), lines[i]);
      assert.ok(lines[i]!.endsWith(` [${code}]`), lines[i]);
    });
    assertNoStack(run);
  });

  test("--json on a valid task prints the envelope with data.task", async () => {
    const run = await errand(["validate", "--json", writeScratch("task.json", JSON.stringify(VALID_TASK))]);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, "");
    assert.ok(run.stdout.endsWith("}\n") && run.stdout.indexOf("\n") === run.stdout.length - 1, "one line of JSON");
    assert.deepEqual(JSON.parse(run.stdout), {
      ok: true,
      status: "valid",
      operationId: NORMALIZED.operationId,
      receipt: null,
      error: null,
      data: { task: NORMALIZED },
    });
  });

  test("--json on an invalid task prints the envelope with every problem (code, path, message) and exits 2", async () => {
    const run = await errand(["validate", "-", "--json"], { stdin: JSON.stringify(INVALID_TASK) });
    assert.equal(run.code, 2);
    const body = JSON.parse(run.stdout) as { ok: boolean; error: { code: string; problems: Array<Record<string, unknown>> } };
    assert.deepEqual(Object.keys(body), ["ok", "status", "receipt", "error", "data"]);
    assert.equal(body.ok, false);
    assert.equal(body.error.code, INVALID_PROBLEMS[0]!.code);
    assert.deepEqual(
      body.error.problems.map(({ code, path }) => ({ code, path })),
      INVALID_PROBLEMS,
    );
    for (const error of body.error.problems) {
      assert.deepEqual(Object.keys(error).sort(), ["code", "message", "path"]);
      assert.equal(typeof error["message"], "string");
    }
  });

  test("text that is not JSON is one invalid_json line and exit 2", async () => {
    const run = await errand(["validate", "-"], { stdin: "{not json" });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^error \(task\): .+ \[invalid_json\]\n$/);
    assertNoStack(run);
  });

  test("--json with text that is not JSON is still the JSON error shape", async () => {
    const run = await errand(["validate", "--json", "-"], { stdin: "[1," });
    assert.equal(run.code, 2);
    const body = JSON.parse(run.stdout) as { ok: boolean; error: { problems: Array<{ code: string; path: string }> } };
    assert.equal(body.ok, false);
    assert.deepEqual(
      body.error.problems.map((e) => [e.code, e.path]),
      [["invalid_json", ""]],
    );
  });

  test("a file that does not exist is a usage error (exit 2), no stack", async () => {
    const run = await errand(["validate", join(scratch, "no-such-file.json")]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /cannot read/);
    assertNoStack(run);
  });

  test("a task over 256 KiB is task_too_large", async () => {
    const run = await errand(["validate", "-"], { stdin: JSON.stringify(VALID_TASK) + " ".repeat(256 * 1024) });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /\[task_too_large\]\n$/);
  });
});

describe("errand canonical", { concurrency: 3 }, () => {
  // Two reference vectors through the real process; test/task/canonicalJson.test.ts checks them all in process.
  const names = readdirSync(new URL("input/", RFC8785)).filter((n) => n === "structures.json" || n === "weird.json");
  assert.equal(names.length, 2);
  for (const name of names) {
    test(`${name}: the RFC 8785 output followed by exactly one newline`, async () => {
      const run = await errand(["canonical", fileURLToPath(new URL(`input/${name}`, RFC8785))]);
      assert.equal(run.code, 0);
      assert.equal(run.stderr, "");
      const expected = Buffer.concat([readFileSync(new URL(`output/${name}`, RFC8785)), Buffer.from("\n")]);
      assert.ok(Buffer.from(run.stdout, "utf8").equals(expected), `got ${JSON.stringify(run.stdout)}`);
    });
  }

  test("reads standard input with -", async () => {
    const run = await errand(["canonical", "-"], { stdin: '{ "b" : [1.0, "x"], "a" : {"d":null, "c":true} }\n' });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, '{"a":{"c":true,"d":null},"b":[1,"x"]}\n');
  });

  for (const [label, text] of [
    ["broken JSON", '{"a":1} x'],
    ["a number JSON.parse turns into Infinity", "[1e400]"],
    ["an unpaired surrogate escape", '{"a":"\\ud800"}'],
  ]) {
    test(`${label}: exit 2 with one invalid_json line and nothing on stdout`, async () => {
      const run = await errand(["canonical", "-"], { stdin: text });
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^error: .+ \[invalid_json\]\n$/);
      assertNoStack(run);
    });
  }
});

describe("errand digest", { concurrency: 3 }, () => {
  const keyFile = writeScratch("test.key", `  \n\t${VECTORS.keyHex}  \n`);

  // Three golden vectors through the real process; test/task/requestDigest.test.ts checks them all in process.
  const chosen = VECTORS.vectors.filter((v) => ["untidy-spelling", "approved-write-non-ascii", "consequential-every-action"].includes(v.name));
  assert.equal(chosen.length, 3);
  for (const vector of chosen) {
    test(`--key-file reproduces golden vector ${vector.name}`, async () => {
      const run = await errand(["digest", writeScratch("task.json", JSON.stringify(vector.input)), "--key-file", keyFile]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "");
      const operationId = (vector.normalized as { operationId: string }).operationId;
      assert.equal(run.stdout, `${JSON.stringify({ operationId, requestDigest: vector.requestDigest })}\n`);
    });
  }

  test("--json prints the envelope with the digest in data; an invalid task with --json gets the error shape", async () => {
    const vector = VECTORS.vectors[0]!;
    const good = await errand(["digest", "-", "--json", "--key-file", keyFile], { stdin: JSON.stringify(vector.input) });
    assert.equal(good.code, 0);
    const operationId = (vector.normalized as { operationId: string }).operationId;
    assert.deepEqual(JSON.parse(good.stdout), {
      ok: true,
      status: "ok",
      operationId,
      receipt: null,
      error: null,
      data: { requestDigest: vector.requestDigest },
    });
    const bad = await errand(["digest", "-", "--json", "--key-file", keyFile], { stdin: JSON.stringify(INVALID_TASK) });
    assert.equal(bad.code, 2);
    const body = JSON.parse(bad.stdout) as { ok: boolean; error: { problems: Array<{ code: string; path: string }> } };
    assert.equal(body.ok, false);
    assert.deepEqual(
      body.error.problems.map(({ code, path }) => ({ code, path })),
      INVALID_PROBLEMS,
    );
  });

  test("an invalid task: exit 2, one line per problem, no digest", async () => {
    const run = await errand(["digest", "-", "--key-file", keyFile], { stdin: JSON.stringify(INVALID_TASK) });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr.trimEnd().split("\n").length, INVALID_PROBLEMS.length);
    assertNoStack(run);
  });

  test("without --key-file: creates ERRAND_HOME/keys/master.key (0600) once and reuses it", async () => {
    const home = join(freshDir("home"), "state");
    const task = writeScratch("task.json", JSON.stringify(VALID_TASK));
    const first = await errand(["digest", task], { env: { ERRAND_HOME: home } });
    assert.equal(first.code, 0, first.stderr);
    const keyPath = join(home, "keys", "master.key");
    assert.equal(statSync(keyPath).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, "keys")).mode & 0o077, 0, "the keys directory is private to its owner");
    const keyText = readFileSync(keyPath, "utf8");
    assert.match(keyText, /^[0-9a-f]{64}\n$/, "32 random bytes as hex");

    const second = await errand(["digest", task], { env: { ERRAND_HOME: home } });
    assert.equal(second.code, 0);
    assert.equal(second.stdout, first.stdout, "the second call reuses the key");
    assert.equal(readFileSync(keyPath, "utf8"), keyText, "the key file is not rewritten");

    const viaFile = await errand(["digest", task, "--key-file", keyPath]);
    assert.equal(viaFile.stdout, first.stdout, "--key-file with the master key gives the same digest");

    const otherHome = await errand(["digest", task], { env: { ERRAND_HOME: join(freshDir("home"), "other") } });
    const digestOf = (run: Run): string => (JSON.parse(run.stdout) as { requestDigest: string }).requestDigest;
    assert.notEqual(digestOf(otherHome), digestOf(first), "a new home gets a new random key");
  });

  test("ERRAND_HOME unset: the state goes to $XDG_STATE_HOME/errand, else ~/.local/state/errand, never the working directory", async () => {
    const home = freshDir("user-home");
    const run = await errand(["digest", "-"], { env: { HOME: home }, stdin: JSON.stringify(VALID_TASK) });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(statSync(join(home, ".local", "state", "errand", "keys", "master.key")).mode & 0o777, 0o600);
    assert.equal(existsSync(join(process.cwd(), ".errand")), false, "nothing is written where errand was started");

    const xdg = freshDir("xdg-state");
    const viaXdg = await errand(["digest", "-"], { env: { HOME: home, XDG_STATE_HOME: xdg }, stdin: JSON.stringify(VALID_TASK) });
    assert.equal(viaXdg.code, 0, viaXdg.stderr);
    assert.equal(statSync(join(xdg, "errand", "keys", "master.key")).mode & 0o777, 0o600);
  });

  const badKeys: Array<[string, string]> = [
    ["31 bytes", "ab".repeat(31)],
    ["not hexadecimal", `zz${"ab".repeat(32)}`],
    ["empty", "\n"],
  ];
  for (const [label, content] of badKeys) {
    test(`a key file that is ${label}: exit 2, key_error, key not echoed`, async () => {
      const run = await errand(["digest", "-", "--key-file", writeScratch("bad.key", content)], { stdin: JSON.stringify(VALID_TASK) });
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^error: .+ \[key_error\]\n$/);
      if (content.trim().length > 0) assert.ok(!run.stderr.includes(content.trim()), "the key material is not printed");
      assertNoStack(run);
    });
  }

  test("a key file that does not exist: exit 2, key_error", async () => {
    const run = await errand(["digest", "-", "--key-file", join(scratch, "missing.key")], { stdin: JSON.stringify(VALID_TASK) });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /\[key_error\]\n$/);
  });
});

describe("errand: command line handling", { concurrency: 3 }, () => {
  test("an unknown command: exit 2 and a pointer to the help", async () => {
    const run = await errand(["frobnicate"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown command "frobnicate"/);
    assert.doesNotMatch(run.stderr, /did you mean/i, "no hint for a word that is close to nothing");
    assertNoStack(run);
  });

  test("a misspelt command or option suggests the nearest one", async () => {
    const command = await errand(["valdiate", "x.json"]);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /unknown command "valdiate"\. Did you mean "errand validate"\?/);
    const option = await errand(["collect", "some-id", "--wiat", "--jsno"]);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /unknown option --wiat .*did you mean --wait\?/);
    assert.match(option.stderr, /unknown option --jsno .*did you mean --json\?/, "every problem of the command line in one run");
    const json = await errand(["inspect", "x", "--json", "--bogus"]);
    assert.equal(json.code, 2);
    const body = JSON.parse(json.stdout) as { ok: boolean; status: string; error: { code: string } };
    assert.equal(body.ok, false);
    assert.equal(body.error.code, "usage");
  });

  test("the command list names each command as its module does, with the same summary", async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      assert.equal(command.name, entry.name);
      assert.equal(command.summary, entry.summary, entry.name);
      assert.ok(command.help.startsWith(`errand ${entry.name}`), `${entry.name}: help starts with its usage line`);
    }
  });

  test("errand help CMD prints the command's help; help of an unknown command suggests", async () => {
    const run = await errand(["help", "collect"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^errand collect <operationId>/);
    const unknown = await errand(["help", "colect"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Did you mean "errand collect"/);
  });

  for (const args of [
    ["validate", "--bogus", "task.json"],
    ["digest", "-", "--key-file"],
    ["validate", "a.json", "b.json"],
  ]) {
    test(`${args.join(" ")}: usage error, exit 2`, async () => {
      const run = await errand(args);
      assert.equal(run.code, 2);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^error: /);
      assert.match(run.stderr, /usage: errand /);
      assertNoStack(run);
    });
  }

  test("a command without its input is a usage error", async () => {
    const run = await errand(["canonical"]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /missing input/);
  });

  test("no command prints the help and exits 2", async () => {
    const run = await errand([]);
    assert.equal(run.code, 2);
    assert.match(run.stdout, /usage: errand <command>/);
  });

  test("--help and <command> --help exit 0", async () => {
    const general = await errand(["--help"]);
    assert.equal(general.code, 0);
    for (const name of ["validate", "canonical", "digest"]) assert.match(general.stdout, new RegExp(`\\b${name}\\b`));
    const validate = await errand(["validate", "--help"]);
    assert.equal(validate.code, 0);
    assert.match(validate.stdout, /errand validate <file\|->/);
  });

  test("an unexpected failure is one line without --debug and shows the stack with --debug", async () => {
    // ERRAND_HOME is a regular file, so the key directory cannot be created under it.
    const home = writeScratch("not-a-directory", "x");
    const task = writeScratch("task.json", JSON.stringify(VALID_TASK));
    const quiet = await errand(["digest", task], { env: { ERRAND_HOME: home } });
    assert.notEqual(quiet.code, 0);
    assert.equal(quiet.stdout, "");
    assert.equal(quiet.stderr.trimEnd().split("\n").length, 1, quiet.stderr);
    assert.match(quiet.stderr, /^error: /);
    assertNoStack(quiet);
    const loud = await errand(["digest", task, "--debug"], { env: { ERRAND_HOME: home } });
    assert.notEqual(loud.code, 0);
    assert.match(loud.stderr, STACK_LINE);
  });
});
