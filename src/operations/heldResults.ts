import { deriveSubkey } from "../keys/loadKey.js";
import type { SealedBox } from "../keys/sealedBox.js";
import { createSealedBox, reseal } from "../keys/sealedBox.js";
import type { EphemeralEvidence } from "../receipt/receiptTypes.js";
import type { OperationRecord, Store } from "../store/Store.js";

/**
 * Results held for collect: a finished operation's extracted values and provider session id,
 * sealed in the store for ERRAND_RESULT_TTL so that every authorized collect (CLI, REST, MCP) from
 * any process on the same store gets them, including one that comes after the client stopped
 * waiting. Never in the clear at rest: AES-256-GCM under the master key's "held-results" subkey,
 * bound to the operation, its request digest and the attempt, so a sealed result moved to another
 * row does not open. A result is served only while its attempt is the operation's last one and
 * the operation is finished; expired results are deleted.
 */
export interface HeldResults {
  hold(operationId: string, requestDigest: string, attempt: number, ephemeral: EphemeralEvidence): Promise<void>;
  /** The values of a finished operation's last attempt, while they are held; undefined otherwise. */
  read(operation: OperationRecord): Promise<EphemeralEvidence | undefined>;
  dropExpired(): Promise<number>;
}

const PURPOSE = "held-results";

function associatedData(operationId: string, requestDigest: string, attempt: number): string {
  return `errand/held-result/v1\u0000${operationId}\u0000${requestDigest}\u0000${attempt}`;
}

/** The box held results are sealed in under a master key. */
export function heldResultsBox(masterKey: Uint8Array): SealedBox {
  return createSealedBox(deriveSubkey(masterKey, PURPOSE));
}

/** A held result under the next master key's box (key rotation); throws SealedBoxError when it does not open under `from`. */
export function resealHeldResult(
  sealed: string,
  held: { operationId: string; requestDigest: string; attempt: number },
  from: SealedBox,
  to: SealedBox,
): string {
  return reseal(from, to, sealed, associatedData(held.operationId, held.requestDigest, held.attempt));
}

export function createHeldResults(store: Store, masterKey: Uint8Array, ttlMs: number): HeldResults {
  const box = heldResultsBox(masterKey);
  return {
    async hold(operationId, requestDigest, attempt, ephemeral) {
      const plain = JSON.stringify({
        outputs: ephemeral.outputs,
        ...(ephemeral.providerSessionId === undefined ? {} : { providerSessionId: ephemeral.providerSessionId }),
      });
      const sealed = box.seal(plain, associatedData(operationId, requestDigest, attempt));
      await store.holdResult({ operationId, attempt, sealed, expiresMs: (await store.now()) + ttlMs });
    },
    async read(operation) {
      const held = await store.readHeldResult(operation.operationId);
      if (held === undefined || held.attempt !== operation.attempts) return undefined;
      let parsed: { outputs?: unknown; providerSessionId?: unknown };
      try {
        parsed = JSON.parse(
          box.open(held.sealed, associatedData(operation.operationId, operation.requestDigest, held.attempt)).toString("utf8"),
        ) as typeof parsed;
      } catch {
        // Sealed under another key, or moved or edited: it fails closed and is simply not served.
        return undefined;
      }
      const outputs =
        typeof parsed.outputs === "object" && parsed.outputs !== null
          ? Object.fromEntries(Object.entries(parsed.outputs).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
          : {};
      return { ephemeral: true, outputs, ...(typeof parsed.providerSessionId === "string" ? { providerSessionId: parsed.providerSessionId } : {}) };
    },
    dropExpired: () => store.dropExpiredResults(),
  };
}
