// errand's interval entry on Deno: `deno task runner`. One pass over what is due (expired leases,
// queued tasks, retries whose delay has passed), within ERRAND_RUNNER_BUDGET (ms, default 50000),
// then it exits with one JSON line of counts. Run it from a schedule of the owner's own choosing;
// errand schedules nothing itself.
import { ErrandError } from "../../errors/errandError.js";
import { DEFAULT_DUE_WORK_BUDGET_MS, runDueWork } from "../fetch/runDueWork.js";
import { deno } from "./denoGlobal.js";

const runtime = deno();
const env = runtime.env.toObject();
const budgetText = (env["ERRAND_RUNNER_BUDGET"] ?? "").trim();
const budgetMs = budgetText === "" ? DEFAULT_DUE_WORK_BUDGET_MS : /^\d{1,9}$/.test(budgetText) ? Number(budgetText) : Number.NaN;
if (!(budgetMs >= 1_000)) {
  console.error(`errand (Deno runner): ERRAND_RUNNER_BUDGET must be a whole number of milliseconds, at least 1000, not "${budgetText.slice(0, 20)}"`);
  runtime.exit(2);
}
try {
  console.log(JSON.stringify(await runDueWork({ env, budgetMs })));
} catch (error) {
  if (!(error instanceof ErrandError)) throw error;
  console.error(`errand (Deno runner): ${error.code}: ${error.message}`);
  runtime.exit(1);
}
