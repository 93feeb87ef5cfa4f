import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";

/**
 * Opens a PGlite data directory with the extensions the migrations create (pg_trgm: migration
 * 0022, the customers' substring search). Every PGlite of the project opens through here, so the
 * template, the embedded database and their tests load the same extensions.
 */
export function openPgliteClient(dir: string): Promise<PGlite> {
  return PGlite.create(dir, { extensions: { pg_trgm } });
}
