/** errand's version, as --version and the HTTP capabilities report it (kept equal to package.json by a test). */
export const VERSION = "0.1.0";
