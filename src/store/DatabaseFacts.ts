/** What `errand doctor` reads from errand's database without migrating or writing anything, on either store. */
export interface DatabaseFacts {
  /** "ok", or the database's first complaint (SQLite's quick_check; PostgreSQL: a missing schema). */
  integrity: string;
  schemaVersion: number;
  /** The newest schema this errand knows. */
  supportedVersion: number;
  ownerPasswordSet: boolean;
  breakers: { provider: string; state: string }[];
}
