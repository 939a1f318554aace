import type { ProgressEvent } from "../../executor/executeTaskTypes.js";
import { printErr, stderrIsTty, writeErrRaw } from "./output.js";
import { stepLabel } from "../../task/stepLabel.js";

/** Step progress on stderr: one line rewritten in place on a terminal, plain lines otherwise. */
export function createProgressReporter(): (event: ProgressEvent) => void {
  const live = stderrIsTty();
  return (event) => {
    if (event.kind === "note") {
      printErr(event.message);
      return;
    }
    if (event.kind === "step_started") {
      const text = `${stepLabel(event.index)} of ${event.total} ${event.action} ...`;
      if (live) writeErrRaw(`\r\u001b[2K${text}`);
      else printErr(text);
      return;
    }
    const text = `${stepLabel(event.index)} ${event.action} ${event.ok ? "ok" : "failed"} (${event.durationMs} ms)`;
    if (live) writeErrRaw(`\r\u001b[2K${text}\n`);
    else printErr(text);
  };
}
