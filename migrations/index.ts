/** Migrations in order. Listed explicitly so they load the same under tsx, jest and the CLI. */
import { Migration20261122000000_init } from './Migration20261122000000_init.js';

export const migrationsList = [
  { name: 'Migration20261122000000_init', class: Migration20261122000000_init },
];
