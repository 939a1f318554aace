/**
 * In-process signals that an operation changed (a receipt was stored, it was cancelled or denied),
 * so a waiting collect answers the moment it happens instead of on its next look at the store.
 * Changes made by other processes are not signalled; waiters keep a slow look at the store for those.
 */
export interface OperationSignals {
  notify(operationId: string): void;
  /**
   * Starts listening before the caller reads the store, so a change that lands between the read
   * and the wait is not missed. Close the watch when done.
   */
  watch(operationId: string): OperationWatch;
}

export interface OperationWatch {
  /** Resolves at once when a change was signalled since the last wait, else at the next signal or after ms. */
  wait(ms: number): Promise<void>;
  close(): void;
}

export function createOperationSignals(): OperationSignals {
  const listeners = new Map<string, Set<() => void>>();
  return {
    notify(operationId) {
      for (const listener of [...(listeners.get(operationId) ?? [])]) listener();
    },
    watch(operationId) {
      let signalled = false;
      let wake: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      const listener = (): void => {
        signalled = true;
        wake?.();
      };
      let set = listeners.get(operationId);
      if (set === undefined) {
        set = new Set();
        listeners.set(operationId, set);
      }
      set.add(listener);
      return {
        wait(ms) {
          if (signalled) {
            signalled = false;
            return Promise.resolve();
          }
          return new Promise<void>((resolve) => {
            wake = () => {
              clearTimeout(timer);
              wake = undefined;
              signalled = false;
              resolve();
            };
            timer = setTimeout(wake, Math.max(0, ms));
          });
        },
        close() {
          clearTimeout(timer);
          wake?.();
          const current = listeners.get(operationId);
          current?.delete(listener);
          if (current?.size === 0) listeners.delete(operationId);
        },
      };
    },
  };
}
