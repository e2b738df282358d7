/**
 * A start-up check of the database's text handling. Names are one without regard to case or
 * Unicode normal form through name_key() (lower(), and normalize() in a UTF8 database: see
 * migrations/Migration20261205000000_name_key.ts); lower() folds ASCII letters only in a SQL_ASCII
 * database or one whose locale is C. Such a database is still used, with one warning saying what to do.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from '../log.js';

export async function checkTextHandling(orm: MikroORM, log: Logger, embedded: boolean): Promise<void> {
  const run = <T>(sql: string) => orm.em.fork().getConnection().execute<T[]>(sql);
  const [{ encoding }] = await run<{ encoding: string }>(`select current_setting('server_encoding') as encoding`);
  // Asked of a UTF8 database only: another may have no É, and the query itself would fail.
  const folds = encoding === 'UTF8' && (await run<{ folds: boolean }>(`select lower('É') = 'é' as folds`))[0].folds;
  if (folds) return;
  const wrong =
    encoding === 'UTF8'
      ? "the database's lower() folds the case of ASCII letters only (lower('É') is not 'é': a locale such as C or POSIX)"
      : encoding === 'SQL_ASCII'
        ? "the database's encoding is SQL_ASCII, not UTF8, so its lower() folds the case of ASCII letters only"
        : `the database's encoding is ${encoding}, not UTF8: it cannot store every character, and its lower() may fold the case of ASCII letters only`;
  const means =
    encoding === 'UTF8'
      ? 'names that differ only in the case of other letters (ÉTÉ and été) are taken as different names'
      : 'names that differ only in the case of other letters (ÉTÉ and été), or in Unicode normal form (Résumé typed on a Mac and elsewhere), are taken as different names';
  const fix = embedded
    ? 'the embedded database under DATA_DIR/pg was made by an earlier version: move its data with pg_dump and pg_restore into a new one (made UTF-8 with the C.UTF-8 locale when DATA_DIR/pg is moved aside) or into a UTF-8 database of your own at DATABASE_URL'
    : 'use a UTF-8 database with a locale such as C.UTF-8 or en_US.UTF-8 (createdb -E UTF8 --locale-provider=builtin --builtin-locale=C.UTF-8 -T template0 on PostgreSQL 17+, createdb -E UTF8 --locale=C.UTF-8 -T template0 before), move the data into it with pg_dump and pg_restore, and point DATABASE_URL at it';
  log.warn({ encoding }, `${wrong}: ${means}. To fix it, ${fix}`);
}
