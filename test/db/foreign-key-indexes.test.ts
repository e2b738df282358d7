/**
 * Every foreign key has an index led by its columns (migrations/Migration20261208000000_foreign_key_indexes.ts):
 * deleting a referenced row looks for the rows pointing at it once per row deleted, and without one
 * each look reads the tenant's rows (a folder tree of 11,000 took 13 s to delete). A new table or
 * key without its index fails here, named.
 */
import { Harness } from '../harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.stop());

/**
 * The foreign keys that `where` picks with no index whose first columns are theirs (in any order).
 * A partial index counts when its condition is only that columns are not null (a nullable key's
 * look is for a value, never null); any other condition answers some looks only.
 */
const unindexed = (where: string) => `
  select c.conrelid::regclass || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid) as key
    from pg_constraint c
   where c.contype = 'f' and ${where}
     and not exists (
       select 1 from pg_index i
        where i.indrelid = c.conrelid
          and (i.indpred is null or pg_get_expr(i.indpred, i.indrelid) ~ '^\\(*\\w+ IS NOT NULL\\)*( AND \\(*\\w+ IS NOT NULL\\)*)*$')
          and (select array_agg(k order by k) from unnest((i.indkey::int2[])[0:cardinality(c.conkey) - 1]) k)
            = (select array_agg(k order by k) from unnest(c.conkey) k))
   order by 1`;

test('every foreign key has an index whose first columns are its columns', async () => {
  const { rows } = await h.services.reads.query<{ key: string }>(unindexed('c.connamespace = current_schema()::regnamespace'));
  expect(rows.map((r) => r.key)).toEqual([]);
});

test('the check names a key without an index of its own, and passes it once one exists (for its non-null values at least)', async () => {
  const c = await h.services.reads.connect();
  try {
    await c.query('begin');
    await c.query('create table fk_probe_parent (id int primary key); create table fk_probe_child (a int, parent int references fk_probe_parent)');
    const named = async () => (await c.query<{ key: string }>(unindexed(`c.conrelid = 'fk_probe_child'::regclass`))).rows.map((r) => r.key);
    const key = 'fk_probe_child.fk_probe_child_parent_fkey FOREIGN KEY (parent) REFERENCES fk_probe_parent(id)';
    expect(await named()).toEqual([key]);
    // Led by another column, or for some rows only: the looks for a parent's rows still read them all.
    await c.query('create index on fk_probe_child (a, parent); create index on fk_probe_child (parent) where a > 0');
    expect(await named()).toEqual([key]);
    await c.query('create index on fk_probe_child (parent, a) where parent is not null');
    expect(await named()).toEqual([]);
  } finally {
    await c.query('rollback');
    c.release();
  }
});
