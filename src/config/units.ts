/** Unit constants so durations and sizes read as what they are (`90 * SECOND`, `64 * MiB`). */
export const MILLISECOND = 1;
export const SECOND = 1000 * MILLISECOND;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export const KiB = 1024;
export const MiB = 1024 * KiB;
