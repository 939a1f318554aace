import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createPinoLogger, parseLogLevel, plainLineAsJson, REPEAT_INTERVAL_MS } from "../../../../src/interfaces/http/observability/pinoLogger.js";
import { withRequestId } from "../../../../src/interfaces/http/observability/requestContext.js";

function collect(level: "error" | "warn" | "info" | "debug" = "info", format: "json" | "text" = "json") {
  const lines: string[] = [];
  let now = Date.parse("2026-12-05T04:00:00Z");
  const logger = createPinoLogger({ format, level, write: (line) => lines.push(line), clock: () => now });
  return { lines, logger, records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>), advance: (ms: number) => (now += ms) };
}

/** A store failure as the PostgreSQL driver raises it while the server is down. */
function refused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect"), { code: "ECONNREFUSED" });
}

describe("service log", () => {
  test("JSON lines carry time, level, msg and the fields; a line written inside a request carries its id", () => {
    const { logger, records } = collect();
    logger.info("attempt", { operationId: "op-1", ms: 12 });
    withRequestId("req-0123456789", () => logger.warn("Wrong owner password", { address: "192.0.2.1" }));
    const [first, second] = records();
    assert.equal(first?.["level"], "info");
    assert.equal(first?.["msg"], "attempt");
    assert.equal(first?.["operationId"], "op-1");
    assert.match(String(first?.["time"]), /^\d{4}-\d\d-\d\dT/);
    assert.equal(first?.["requestId"], undefined);
    assert.equal(second?.["requestId"], "req-0123456789");
    assert.equal(second?.["level"], "warn");
  });

  test("ERRAND_LOG_LEVEL: debug lines only at debug; unknown levels refused", () => {
    const quiet = collect("info");
    quiet.logger.debug("request", { path: "/metrics" });
    assert.equal(quiet.lines.length, 0);
    const loud = collect("debug");
    loud.logger.debug("request", { path: "/metrics" });
    assert.equal(loud.lines.length, 1);
    const warnOnly = collect("warn");
    warnOnly.logger.info("request", {});
    assert.equal(warnOnly.lines.length, 0);
    assert.equal(parseLogLevel(undefined), "info");
    assert.equal(parseLogLevel("DEBUG"), "debug");
    assert.equal(parseLogLevel("verbose"), undefined);
  });

  test("a store outage logs one line per kind of failure per interval, without a stack, and says how many it left out", () => {
    const { logger, records, advance } = collect();
    for (let i = 0; i < 30; i += 1) {
      logger.error("The worker pool could not reach the store", refused());
      advance(1_000);
    }
    logger.error("The worker pool could not reach the store", Object.assign(new Error("terminating connection"), { code: "57P01" }));
    let lines = records();
    assert.equal(lines.length, 2, "one line for each kind of failure");
    assert.deepEqual(lines[0]?.["failure"], { kind: "ECONNREFUSED", message: "connect ECONNREFUSED 127.0.0.1:5432" });
    assert.equal((lines[1]?.["failure"] as { kind: string }).kind, "57P01");
    advance(REPEAT_INTERVAL_MS);
    logger.error("The worker pool could not reach the store", refused());
    lines = records();
    assert.equal(lines.length, 3);
    assert.equal(lines[2]?.["repeatsLeftOut"], 29);
    assert.ok(!JSON.stringify(lines).includes("afterConnect"), "no stack at info");
  });

  test("at debug the stack is kept; in text format the failure reads on one line", () => {
    const debug = collect("debug");
    debug.logger.error("Request failed unexpectedly", refused());
    assert.match(JSON.stringify(debug.records()[0]?.["failure"]), /afterConnect/);
    const text = collect("info", "text");
    text.logger.error("Request failed unexpectedly", refused());
    assert.equal(text.lines.length, 1);
    assert.match(text.lines[0] ?? "", /error Request failed unexpectedly: connect ECONNREFUSED 127\.0\.0\.1:5432 \(ECONNREFUSED\)$/);
  });

  test("plain lines become JSON log lines of the same shape; JSON lines pass unchanged", () => {
    const at = () => Date.parse("2026-12-05T04:00:00Z");
    assert.deepEqual(JSON.parse(plainLineAsJson("errand serve: listening on http://127.0.0.1:8787", at)), {
      level: "info",
      time: "2026-12-05T04:00:00.000Z",
      msg: "errand serve: listening on http://127.0.0.1:8787",
    });
    assert.equal((JSON.parse(plainLineAsJson("notice: errand runs as root", at)) as { level: string }).level, "warn");
    assert.equal((JSON.parse(plainLineAsJson("error: Cannot listen [configuration_error]", at)) as { level: string }).level, "error");
    assert.equal(plainLineAsJson('{"level":"info","msg":"x"}'), '{"level":"info","msg":"x"}');
    assert.equal((JSON.parse(plainLineAsJson("{not json", at)) as { msg: string }).msg, "{not json");
  });
});
