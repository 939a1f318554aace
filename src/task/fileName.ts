/**
 * The name of a file the owner put in errand with `errand file add` for upload steps. Tasks name a
 * file only this way (upload's "file"); a path never enters a task. Letters, digits, dot, dash and
 * underscore, starting with a letter or digit: no separator, no "..", no NUL, nothing absolute.
 */
export const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Why a name is not a file name, in words for the person who wrote it; null when it is one. */
export function fileNameProblem(name: string): string | null {
  if (name.includes("\u0000")) return "holds a NUL character";
  if (name.includes("/") || name.includes("\\"))
    return "holds a path separator (a file name, not a path: the owner added the file under this name with errand file add)";
  if (name.includes("..")) return 'holds ".." (a file name, not a path)';
  if (name.length === 0) return "is empty";
  if (name.length > 100) return "is longer than 100 characters";
  if (!FILE_NAME.test(name)) return "must start with a letter or digit and hold only letters, digits, '.', '-' and '_'";
  return null;
}
