import type { MiddlewareHandler } from "hono";
import type { AppDeps, AppEnv } from "./httpDeps.js";

/**
 * After each request, logs every stored row that grants authority (a token, a grant, a client, a
 * code, the owner password) that the access store refused because it failed its MAC: it was changed
 * without the key, granted nothing, and the operator should know. Named by table and id only.
 */
export function reportRowRefusals(deps: Pick<AppDeps, "access" | "logger">): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    try {
      await next();
    } finally {
      for (const row of deps.access.takeRowRefusals()) {
        deps.logger.warn("A stored row that grants authority fails its MAC (changed without the key) and was refused", { table: row.table, id: row.id });
      }
    }
  };
}
