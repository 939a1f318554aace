/** Process exit codes. They match receipt statuses so scripts can branch without parsing output. */
export const EXIT = {
  pass: 0,
  fail: 1,
  usage: 2,
  partial: 3,
  blocked: 4,
  uncertain: 5,
  cancelled: 6,
  pending: 7,
} as const;
