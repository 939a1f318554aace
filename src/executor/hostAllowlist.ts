import { hostMatchesPattern } from "../task/normalizeHostPattern.js";
import type { Task } from "../task/taskTypes.js";

/** Hosts the main frame may visit: the target's host plus the task's allowedHosts patterns. */
export function createHostAllowlist(task: Task): (url: string) => boolean {
  return createHostsAllowlist([new URL(task.target.url).hostname], task.allowedHosts);
}

/** Hosts the main frame may visit: exact hosts plus host patterns (a task's, or a login handoff's). */
export function createHostsAllowlist(exact: readonly string[], patterns: readonly string[]): (url: string) => boolean {
  return (url: string) => {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return false;
    }
    if (host.endsWith(".")) host = host.slice(0, -1);
    return exact.includes(host) || patterns.some((pattern) => hostMatchesPattern(host, pattern));
  };
}
