import type { HomeAccess } from "../../app/masterKey.js";
import type { OpenedAccess } from "../../app/ownerRegistries.js";
import type { CommandContext } from "./commandContext.js";
import type { OpenedOperations } from "./openOperations.js";
import { openOperations } from "./openOperations.js";
import { withOperations } from "./withOperations.js";

export type { OpenedAccess };

/** Runs a command body with the access store open; errand closes it with everything else (see masterKeyFor for `access`). */
export function withAccess(
  ctx: CommandContext,
  body: (opened: OpenedAccess & OpenedOperations) => Promise<number>,
  access: HomeAccess = "write",
): Promise<number> {
  return withOperations(
    ctx,
    (operations) => body({ ...operations, ...operations.accessTables() }),
    (c) => openOperations(c, { access }),
  );
}
