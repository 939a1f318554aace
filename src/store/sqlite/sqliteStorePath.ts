import { join } from "node:path";

/** The embedded database's file in ERRAND_HOME (kept apart from the store so a path costs no native module). */
export function sqliteStorePath(errandHome: string): string {
  return join(errandHome, "errand.db");
}
