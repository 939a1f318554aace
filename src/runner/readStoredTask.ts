import type { Task } from "../task/taskTypes.js";
import { validateTask } from "../task/validateTask.js";

/**
 * Reads a task document back from the store and validates it again: the store is not trusted to
 * hand the executor anything the task contract would refuse. Null when it is unreadable.
 */
export function readStoredTask(taskJson: string): Task | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(taskJson);
  } catch {
    return null;
  }
  const result = validateTask(parsed);
  return result.ok ? result.value : null;
}
