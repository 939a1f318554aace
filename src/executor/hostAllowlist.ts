import { hostMatchesPattern } from "../task/normalizeHostPattern.js";
import type { Task } from "../task/taskTypes.js";

/** Hosts the main frame may visit: the target's host plus the task's allowedHosts patterns. */
export function createHostAllowlist(task: Task): (url: string) => boolean {
  const targetHost = new URL(task.target.url).hostname;
  return (url: string) => {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return false;
    }
    if (host.endsWith(".")) host = host.slice(0, -1);
    return host === targetHost || task.allowedHosts.some((pattern) => hostMatchesPattern(host, pattern));
  };
}
