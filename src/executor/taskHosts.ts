import type { Task } from "../task/taskTypes.js";

/**
 * The hosts a task names itself: its target's host and its allowedHosts entries (names, wildcard
 * patterns, or an allowance's IP literal). Operator allowances apply only to these, in every layer;
 * main-frame navigations may go only to these.
 */
export function taskHosts(task: Task): string[] {
  return [new URL(task.target.url).hostname, ...task.allowedHosts];
}
