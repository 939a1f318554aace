// Task builders for the operations tests. Not a test file itself.
import { randomUUID } from "node:crypto";

/** A read-only task; `label` picks the fake executor's behaviour. */
export function readTask(operationId: string = randomUUID(), label?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: "errand.task.v1",
    operationId,
    ...(label === undefined ? {} : { label }),
    target: { url: "https://example.com/" },
    risk: "read_only",
    steps: [{ action: "expect_text", text: "Example Domain" }],
    ...extra,
  };
}

/** An approved reversible write: a click (the mutation boundary), then an expectation. */
export function writeTask(operationId: string = randomUUID(), label?: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    schemaVersion: "errand.task.v1",
    operationId,
    ...(label === undefined ? {} : { label }),
    target: { url: "https://example.com/form" },
    risk: "reversible_write",
    approved: true,
    steps: [
      { action: "click", selector: "#save" },
      { action: "expect_text", text: "Saved" },
    ],
    ...extra,
  };
}
