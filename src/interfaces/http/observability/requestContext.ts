import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

/** What every log line written while a request is handled carries: the request's id. */
interface RequestScope {
  requestId: string;
}

const scope = new AsyncLocalStorage<RequestScope>();

/**
 * A caller's X-Request-Id is kept when it is a plain token (a proxy's id then joins both logs);
 * anything else (too long, spaces, quotes, control characters) is replaced by errand's own id.
 */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** The request id for an incoming request: the caller's X-Request-Id when acceptable, else a new UUID. */
export function requestIdFor(header: string | undefined): string {
  return header !== undefined && ACCEPTED_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Runs `work` with `requestId` as the id every log line inside it carries. */
export function withRequestId<T>(requestId: string, work: () => T): T {
  return scope.run({ requestId }, work);
}

/** The id of the request being handled, or undefined outside one. */
export function currentRequestId(): string | undefined {
  return scope.getStore()?.requestId;
}
