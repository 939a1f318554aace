import { ErrandError } from "../../errors/errandError.js";
/**
 * Thrown by command parsing for a malformed command line; the CLI turns it into exit 2. It carries
 * every problem found in the command line, so one run names them all.
 */
export class UsageError extends ErrandError {
  readonly problems: readonly string[];

  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : problems;
    super("usage", list.join("; "));
    this.problems = list;
  }
}
