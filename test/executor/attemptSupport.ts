import { randomUUID } from "node:crypto";
import type { AttemptContext } from "../../src/executor/executeTaskTypes.js";
import type { Task } from "../../src/task/taskTypes.js";
import { validateTask } from "../../src/task/validateTask.js";

/** A validated read_only task with a fresh operationId; `partial` overrides any field. */
export function makeTask(partial: Record<string, unknown>): Task {
  const result = validateTask({ schemaVersion: "errand.task.v1", operationId: randomUUID(), risk: "read_only", ...partial });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.value;
}

/** An attempt context that records nothing and is never cancelled, unless overridden. */
export function makeContext(overrides: Partial<AttemptContext> = {}): AttemptContext {
  return { requestDigest: "hmac-sha256:test", attempt: 1, signal: new AbortController().signal, beforeMutationBoundary: () => Promise.resolve(), ...overrides };
}
