import { Migration } from '@mikro-orm/migrations';

/**
 * Three alert events take the ids the Node clients ship in `constants.alertEventIds`
 * (src/alert-events.ts; docs/decisions.md, "Alerts"): the subscriptions made under the earlier
 * ids name them by the new ones.
 */
const RENAMED: [before: string, after: string][] = [
  ['16206eb1-27cc-4660-97be-c1bd131e2bc4', '3702cfbf-555c-4032-bfb2-e25829788bac'], // Document added
  ['02d962a2-1548-4f66-be00-c345d4121acf', '4bba55c1-7af6-48ff-bfbe-ec7a58eb7f01'], // Document checked out
  ['e5bd2c16-23a7-470f-bf85-93dafbe19f16', 'd47804ab-aee9-4002-bab5-9f1ac0366076'], // Document checked in
];

const renaming = (pairs: [string, string][]) =>
  `update alert_subscription set event_id = case event_id ${pairs.map(([from, to]) => `when '${from}' then '${to}'::uuid`).join(' ')} end
   where event_id in (${pairs.map(([from]) => `'${from}'`).join(', ')});`;

export class Migration20261206000000_alert_event_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql(renaming(RENAMED));
  }

  override async down(): Promise<void> {
    this.addSql(renaming(RENAMED.map(([before, after]) => [after, before])));
  }
}
