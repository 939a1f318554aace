// What a serving entry (errand serve, the fetch handler) refuses of the operator's private allowances before anything listens.
import assert from "node:assert/strict";
import { test } from "node:test";
import { operatorAllowances } from "../../src/app/operatorNetworkPolicy.js";
import { readServingEnvironment } from "../../src/app/servingEnvironment.js";

const address = { host: "127.0.0.1", port: 0 };

test("ERRAND_ALLOW_PRIVATE and the flags are read together: a bad entry in either is refused as usage, naming the entry", () => {
  const fromEnv = readServingEnvironment({ ERRAND_ALLOW_PRIVATE: "127.0.0.1:8080, localhost" }, address);
  assert.equal(fromEnv.ok, false);
  assert.equal(!fromEnv.ok && fromEnv.code, "usage");
  assert.match(!fromEnv.ok ? fromEnv.message : "", /allow-private entry "localhost"/);
  const fromFlag = readServingEnvironment({ ERRAND_ALLOW_PRIVATE: "127.0.0.1:8080" }, address, ["10.0.0.1:99999"]);
  assert.equal(!fromFlag.ok && fromFlag.code, "usage");
  assert.match(!fromFlag.ok ? fromFlag.message : "", /allow-private entry "10.0.0.1:99999"/);
  assert.equal(readServingEnvironment({ ERRAND_ALLOW_PRIVATE: " , 127.0.0.1:8080 ,, " }, address, ["[::1]:9000"]).ok, true);
});

test("operatorAllowances: flags and the variable, comma lists, blanks skipped, duplicates once", () => {
  const read = operatorAllowances({ ERRAND_ALLOW_PRIVATE: " 127.0.0.1:8080 ,, [::1]:9000 " }, ["127.0.0.1:8080", "LocalHost:81"]);
  assert.deepEqual(read.ok && read.value, [
    { host: "127.0.0.1", port: 8080 },
    { host: "localhost", port: 81 },
    { host: "::1", port: 9000 },
  ]);
  assert.deepEqual(operatorAllowances({}, []), { ok: true, value: [] });
  assert.deepEqual(operatorAllowances({ ERRAND_ALLOW_PRIVATE: "" }, []), { ok: true, value: [] });
});
