/** Thrown by command parsing for a malformed command line; main turns it into exit 2. */
export class UsageError extends Error {}
