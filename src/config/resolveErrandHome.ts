import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** Where errand keeps its state and why, as `errand doctor` reports it. */
export interface ErrandHome {
  path: string;
  /** Which rule chose it. */
  source: "ERRAND_HOME" | "STATE_DIRECTORY" | "XDG_STATE_HOME" | "HOME";
}

/**
 * The state directory, never the current directory: ERRAND_HOME when set; else systemd's
 * STATE_DIRECTORY (StateDirectory=errand gives /var/lib/errand); else $XDG_STATE_HOME/errand
 * (an absolute XDG_STATE_HOME only, as the XDG spec asks); else ~/.local/state/errand.
 */
export function resolveErrandHome(env: NodeJS.ProcessEnv): ErrandHome {
  const explicit = env["ERRAND_HOME"];
  if (explicit !== undefined && explicit !== "") return { path: explicit, source: "ERRAND_HOME" };
  // systemd may pass several colon-separated directories; errand's unit names one.
  const systemd = env["STATE_DIRECTORY"]?.split(":")[0];
  if (systemd !== undefined && systemd !== "") return { path: systemd, source: "STATE_DIRECTORY" };
  const xdg = env["XDG_STATE_HOME"];
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) return { path: join(xdg, "errand"), source: "XDG_STATE_HOME" };
  const home = env["HOME"] !== undefined && env["HOME"] !== "" ? env["HOME"] : homedir();
  return { path: join(home, ".local", "state", "errand"), source: "HOME" };
}
