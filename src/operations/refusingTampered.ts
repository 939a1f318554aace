import { OperationTamperedError } from "../store/storeErrors.js";
import type { ServiceFailure } from "./serviceTypes.js";

/**
 * Runs a store action a caller asked for by id, answering journal_tampered (nothing changed) when the
 * store refused the operation because its row does not match its journal.
 */
export async function refusingTampered<T>(action: () => Promise<T>): Promise<T | ServiceFailure> {
  try {
    return await action();
  } catch (error) {
    if (error instanceof OperationTamperedError) return { ok: false, code: "journal_tampered", message: error.message };
    throw error;
  }
}
