/**
 * `q` over records no table holds (COMPUTED_TYPES in src/datatypes.ts: the fixed alert events,
 * the document fields): the list goes to PostgreSQL as a VALUES list of the fields `q` can name,
 * so a condition means what it means on every other list (like, in, substring, ...). One
 * statement, and none without a `q`. A bad `q` is a 400 before anything is read.
 */
import { COMPUTED_TYPES, computedQueryFields } from './datatypes.js';
import type { FieldType } from './query/fields.js';
import { compileQText } from './query/index.js';
import { run, type Reader } from './read/rows.js';
import { join, raw, sql, type Sql } from './sql.js';

const CAST: Record<FieldType, string> = { string: 'text', guid: 'uuid', integer: 'bigint', numeric: 'numeric', boolean: 'boolean', datetime: 'timestamp' };

/**
 * For computed type `typeName`: the records `q` finds, in their order, read when first asked for
 * (once). `q` is compiled at the call, so a bad one is refused there, whatever is read later.
 */
export function computedMatching<T extends object>(typeName: string): (reader: Reader, records: readonly T[], q: string | null | undefined) => () => Promise<readonly T[]> {
  const fields = Object.entries(COMPUTED_TYPES[typeName].fields).filter((e): e is [string, FieldType] => e[1] !== null);
  const qFields = computedQueryFields(typeName, (field) => raw(`t."${field}"`));
  const columns = raw(fields.map(([n]) => `"${n}"`).join(', '));
  return (reader, records, q) => {
    const condition = compileQText(q ?? undefined, qFields);
    if (!condition) return () => Promise.resolve(records);
    let found: Promise<readonly T[]> | undefined;
    return () => (found ??= matching(reader, records, condition));
  };

  async function matching(reader: Reader, records: readonly T[], condition: Sql): Promise<readonly T[]> {
    const value = (r: T, n: string) => (r as Record<string, unknown>)[n];
    const rows = join(records.map((r, i) => sql`(${i}::int, ${join(fields.map(([n, type]) => sql`${value(r, n)}${raw(`::${CAST[type]}`)}`), ', ')})`), ', ');
    const hits = await run<{ row: number }>(reader, sql`select t."row$" as row from (values ${rows}) as t("row$", ${columns}) where ${condition}`);
    const found = new Set(hits.map((h) => h.row));
    return records.filter((_, i) => found.has(i));
  }
}
