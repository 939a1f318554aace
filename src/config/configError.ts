import { ErrandError } from "../errors/errandError.js";

/** A configuration value errand cannot use; the message names the variable and what it accepts. */
export class ConfigError extends ErrandError {
  declare readonly code: "configuration_error";
  constructor(message: string) {
    super("configuration_error", message);
  }
}
