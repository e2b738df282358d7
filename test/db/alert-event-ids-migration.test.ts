/**
 * The alert event ids migration: subscriptions made under the earlier ids of "Document added",
 * "checked out" and "checked in" name those events by the ids the Node clients ship
 * (`constants.alertEventIds`); others are left as they are; it reverts and applies again. Runs on a
 * database of its own, made and dropped here.
 */
import { ALERT_EVENTS } from '../../src/alert-events.js';
import { newId } from '../../src/ids.js';
import { migrationDatabase } from './migration-database.js';

const BEFORE = 'Migration20261205000000_hand_list_indexes';
const IDS = 'Migration20261206000000_alert_event_ids';
// The ids these events had before, and one that did not change.
const EARLIER = {
  documentAdded: '16206eb1-27cc-4660-97be-c1bd131e2bc4',
  documentCheckedOut: '02d962a2-1548-4f66-be00-c345d4121acf',
  documentCheckedIn: 'e5bd2c16-23a7-470f-bf85-93dafbe19f16',
  documentRevised: ALERT_EVENTS.documentRevised.id,
};

const { migrator, sql } = migrationDatabase('alertids');

const eventsBySubscription = async () => new Map((await sql<{ id: string; event_id: string }>('select id, event_id from alert_subscription')).map((r) => [r.id, r.event_id]));

test('subscriptions under the earlier ids name the events by the clients\' ids; the migration reverts and applies again', async () => {
  await migrator().up({ to: BEFORE });
  const [customer, tenant, site, user, folder] = Array.from({ length: 5 }, newId);
  await sql(
    `insert into customer (id, alias, name) values (?, 'one', 'one');
     insert into customer_database (id, customer_id, alias, name) values (?, ?, 'main', 'main');
     insert into site (id, tenant_id, name) values (?, ?, 'Home');
     insert into app_user (id, tenant_id, site_id, user_id, name, password_hash) values (?, ?, ?, 'admin', 'admin', 'x');
     insert into folder (tenant_id, id, top_id, name, path) values (?, ?, ?, 'F', '/F')`,
    [customer, tenant, customer, site, tenant, user, tenant, site, tenant, folder, folder],
  );
  const subs = Object.fromEntries(Object.keys(EARLIER).map((k) => [k, newId()])) as Record<keyof typeof EARLIER, string>;
  for (const [k, event] of Object.entries(EARLIER)) {
    await sql('insert into alert_subscription (tenant_id, id, event_id, folder_id, user_id) values (?, ?, ?, ?, ?)', [tenant, subs[k as keyof typeof EARLIER], event, folder, user]);
  }
  const earlier = new Map(Object.entries(EARLIER).map(([k, event]) => [subs[k as keyof typeof EARLIER], event]));
  const now = new Map(Object.keys(EARLIER).map((k) => [subs[k as keyof typeof EARLIER], ALERT_EVENTS[k as keyof typeof EARLIER].id]));
  expect([...now.values()].slice(0, 3)).toEqual(['3702cfbf-555c-4032-bfb2-e25829788bac', '4bba55c1-7af6-48ff-bfbe-ec7a58eb7f01', 'd47804ab-aee9-4002-bab5-9f1ac0366076']);

  // Named, so that later migrations neither run here nor get reverted in its place.
  await migrator().up({ to: IDS });
  expect(await eventsBySubscription()).toEqual(now);
  await migrator().down({ to: IDS });
  expect(await eventsBySubscription()).toEqual(earlier);
  await migrator().up({ to: IDS });
  expect(await eventsBySubscription()).toEqual(now);
});
