import type { Result } from "../errors/result.js";
import { failed } from "../errors/result.js";
import { TASK_LIMITS } from "./limits.js";
import type { Task } from "./taskTypes.js";
import { validateTask } from "./validateTask.js";

/** Checks the size of raw task text before parsing it, then validates the parsed JSON. */
export function parseTaskText(text: string): Result<Task> {
  const bytes = new TextEncoder().encode(text).length;
  if (bytes > TASK_LIMITS.taskBytes) {
    return failed([{ code: "task_too_large", path: "", message: `The task is ${bytes} bytes; the limit is ${TASK_LIMITS.taskBytes} (256 KiB).` }]);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : "unparseable";
    return failed([{ code: "invalid_json", path: "", message: `The task is not valid JSON: ${detail}` }]);
  }
  return validateTask(parsed);
}
