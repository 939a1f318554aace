import { errorMessage } from "../../../errors/errorMessage.js";
/** One thing errand needs before it can take work, and what is wrong with it (null when fine). */
export interface ReadinessProbe {
  name: string;
  check(): Promise<string | null>;
}

export interface ReadinessReport {
  ready: boolean;
  checks: { name: string; ok: boolean; reason: string | null }[];
}

/** How long one probe may take before it counts as failed (a hung database must not hang the probe). */
const PROBE_TIMEOUT_MS = 5_000;

/** Runs every probe (in parallel, each bounded) and says whether errand is ready, with every reason it is not. */
export async function checkReadiness(probes: readonly ReadinessProbe[]): Promise<ReadinessReport> {
  const checks = await Promise.all(
    probes.map(async (probe) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`did not answer within ${PROBE_TIMEOUT_MS / 1000} s`), PROBE_TIMEOUT_MS);
      });
      try {
        const reason = await Promise.race([probe.check().catch((error: unknown) => errorMessage(error)), timeout]);
        return { name: probe.name, ok: reason === null, reason };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { ready: checks.every((c) => c.ok), checks };
}
