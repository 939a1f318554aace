// errand's public surface for programs that embed it: the composition root and the types it takes
// and gives. Everything else is internal (package.json's "exports" lists this module alone).
export { createErrand } from "./app/createErrand.js";
export type { Errand, ErrandOptions } from "./app/createErrand.js";
export type { ExecutorSettings, ExecutorSource, WiredExecutor } from "./app/wiredExecutor.js";
export type { HttpOptions, ServedHttp } from "./app/serveHttp.js";
export type { OperationsService } from "./operations/serviceTypes.js";
export type { Task } from "./task/taskTypes.js";
export type { Receipt, ReceiptStatus } from "./receipt/receiptTypes.js";
