import { existsSync } from "node:fs";
import { pendingKeyPath, rotationLockPath } from "../../keys/rotationKeyFiles.js";
import { printErr } from "./output.js";

/**
 * Run before every command: when a key rotation stopped part-way (keys/next.key is there), puts in
 * force the key the database is under (rotation/settleInterruptedRotation) and says which, on stderr.
 * A rotation stopped after its new key was in force but before it let go of keys/rotation.lock leaves
 * only the lock: that is settled too (a dead holder's lock and leftovers are removed), so no command
 * after a crash finds rotation files. Two file checks when no rotation was under way; nothing else is
 * loaded then.
 */
export async function settleRotationBeforeCommand(errandHome: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (!existsSync(pendingKeyPath(errandHome)) && !existsSync(rotationLockPath(errandHome))) return;
  const [{ settleInterruptedRotation }, { resolveRuntimeConfig }, { storeLocationFor }] = await Promise.all([
    import("../../rotation/settleInterruptedRotation.js"),
    import("../../config/runtimeConfig.js"),
    import("../../app/storeLocation.js"),
  ]);
  const config = resolveRuntimeConfig(env);
  const settled = await settleInterruptedRotation(config.errandHome, storeLocationFor(config));
  if (settled === null) return;
  if (settled.outcome === "completed")
    printErr(
      `errand: a key rotation stopped after the database committed to the new key; key ${settled.keyId} is now in force (keys/master.key), the old one kept as keys/former/${settled.formerKeyId}.key.`,
    );
  else if (settled.outcome === "rolled_back")
    printErr(
      `errand: a key rotation stopped before the database committed; nothing changed, key ${settled.keyId} stays in force and the unused new key was removed.`,
    );
  else printErr(`errand: a key rotation is running (process ${settled.owner.pid} on ${settled.owner.host}); this command uses the key in force until it ends.`);
}
