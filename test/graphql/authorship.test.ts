/**
 * Generated from the schema's mutations less those a route row names (test/rest/authorship.test.ts
 * checks those): every mutation /graphql alone serves that answers records of a table keeping who
 * made its rows records its caller there, as the routes' writes do. Called over /graphql by a
 * second administrator on the records of test/rest/route-fixture.ts (the first administrator's),
 * each row it made names the caller as maker and changer, and each record it answers that it
 * changed names the caller as changer, with a new modified date, and keeps its maker, whether the
 * rows were last stamped by the caller or by the first administrator, an hour back
 * (test/rest/authorship.ts). Arguments are generated: an input object as a route's body is
 * (KNOWN's values, the rest of its type), and any other required argument as the fixture samples
 * the path parameter that fills it on a route answering the same records (an `id` names such a
 * record). An argument no route carries needs a value in ARGUMENTS; a mutation /graphql alone
 * serves that answers no such records needs a line in NOT_CHECKED saying why, so none is forgotten.
 */
import { getNamedType, isInputObjectType, isNonNullType, type GraphQLField } from 'graphql';
import type { ResourceDef } from '../../src/read/define.js';
import { argumentOf } from '../../src/rest/check-routes.js';
import { isSofaRoute, routes } from '../../src/rest/routes.js';
import { auditedTables, authorshipFaults, recordsOf, secondAdministrator, type Outcome } from '../rest/authorship.js';
import { A, fieldOf, h, inputOf, learnMandatory, sampleOf, setUpRouteFixture, tenantRoutes } from '../rest/route-fixture.js';
import { asVariable } from '../rest/input-body.js';
import { uniq } from '../rest/support.js';

setUpRouteFixture('gqlauthorship');
const author = secondAdministrator();

type Field = GraphQLField<unknown, unknown>;

/** A key of the draft's fields the edit names: its first field not deleted (the fixture's form template has KNOWN's keys). */
async function draftFieldKey(args: Record<string, unknown>) {
  const read = await A.gql('query ($id: String!) { formTemplate(id: $id) { revisions { fields { key deleted } } } }', { id: args.id });
  return read.body.data.formTemplate.revisions.at(-1).fields.find((f: { deleted: boolean }) => !f.deleted).key;
}

/** Arguments no route carries, by mutation: each a value given the generated ones. */
const ARGUMENTS: Record<string, Record<string, (args: Record<string, unknown>) => Promise<unknown>>> = {
  updateFormTemplateField: { key: draftFieldKey },
  deleteFormTemplateField: { key: draftFieldKey },
};

/** Mutations /graphql alone serves that answer no records of a table keeping who made its rows, and why none stamps one. */
const NOT_CHECKED: Record<string, string> = {
  noop: 'writes nothing',
  deleteScript: 'deletes its row: none is left to name its changer',
  deleteScheduledProcess: 'deletes its row and its runs (scheduled_run keeps no maker)',
  addUserSupervisor: 'writes user_supervisor, which keeps no maker (nor does app_user, the User it answers)',
  removeUserSupervisor: 'deletes a user_supervisor row, which keeps no maker',
};

const routed = new Set(routes.filter(isSofaRoute).map((r) => r.field));

/** The fixture's value for `arg` of a mutation answering `def`'s records: the path parameter filling it on a route answering them. */
function sampleOnRoutes(def: ResourceDef, arg: string): string | undefined {
  for (const r of tenantRoutes) {
    if (recordsOf(fieldOf(h.app.schema, r)) !== def) continue;
    const segments = r.path.split('/');
    const at = segments.findIndex((s) => s.startsWith(':') && argumentOf(r, s.slice(1)) === arg);
    if (at > 0) return sampleOf(r, segments[at].slice(1), segments[at - 1]);
  }
  return undefined;
}

/** Values of its own where values are unique (names, labels), as the routes' writes send them. */
const ownValues = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).map(([k, v]) => [k, v === 'conformance' ? uniq('conformance') : v]));

/** The arguments of `field` (answering `def`'s records): generated, or ARGUMENTS'. */
async function argumentsOf(field: Field, def: ResourceDef): Promise<Record<string, unknown>> {
  const given = ARGUMENTS[field.name] ?? {};
  const args: Record<string, unknown> = {};
  for (const a of field.args.filter((x) => !(x.name in given))) {
    if (isInputObjectType(getNamedType(a.type))) args[a.name] = asVariable(field, a.name, ownValues(inputOf(field, a.name, `Mutation.${field.name}`)));
    else if (isNonNullType(a.type)) {
      args[a.name] = sampleOnRoutes(def, a.name);
      if (args[a.name] === undefined) throw new Error(`No route answering ${def.typeName} records carries the argument '${a.name}' of Mutation.${field.name}`);
    }
  }
  for (const [name, value] of Object.entries(given)) args[name] = await value(args);
  return args;
}

/** `field` called by the author over /graphql, its records' ids selected; a prose-mandatory input key its refusal names is learned, as a route's create learns it. */
async function call(field: Field, def: ResourceDef): Promise<Outcome> {
  const where = `Mutation.${field.name}`;
  const declared = field.args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const operation = field.args.length ? `mutation (${declared}) { ${field.name}(${passed}) { ${def.idField} } }` : `mutation { ${field.name} { ${def.idField} } }`;
  const input = field.args.find((a) => isInputObjectType(getNamedType(a.type)));
  for (;;) {
    const args = await argumentsOf(field, def).catch((e: Error) => e);
    if (args instanceof Error) return { refusal: args.message };
    const reply = await author().api.gql(operation, args);
    if (reply.body?.errors && input && learnMandatory(field, input.name, where, JSON.stringify(reply.body.errors))) continue;
    const data = reply.body?.data?.[field.name];
    return reply.body?.errors || !data ? { refusal: `${where} with ${JSON.stringify(args)} answered ${reply.status} ${reply.text}` } : { data };
  }
}

test('every mutation /graphql alone serves that answers records keeping their authors records its caller: maker of what it made, changer of what it changed', async () => {
  const audited = await auditedTables();
  const graphqlOnly = Object.values(h.app.schema.getMutationType()!.getFields()).filter((f) => !routed.has(`Mutation.${f.name}`));
  const writes = graphqlOnly.filter((f) => audited.has(recordsOf(f)?.table ?? ''));
  const fix = {
    refused: 'give its arguments what they need (ARGUMENTS here, KNOWN or INPUT_ONLY in test/rest/route-fixture.ts)',
    // A field edit changes the draft's fields, beside the draft: it stamps and dates the draft.
    unchanged: 'its arguments need more, or it changed rows beside its record (its parts) without stamping and dating the record',
  };
  const faults: string[] = [];
  for (const f of writes) {
    const def = recordsOf(f)!;
    faults.push(...(await authorshipFaults({ at: `Mutation.${f.name}`, def, call: () => call(f, def) }, audited, author().id, fix)));
  }
  expect(faults).toEqual([]);
  // A new mutation /graphql alone serves is checked here, or says in NOT_CHECKED why not.
  const unchecked = graphqlOnly.filter((f) => !writes.includes(f)).map((f) => f.name);
  expect(unchecked.filter((name) => !(name in NOT_CHECKED)).map((name) => `Mutation.${name} answers no audited records: say in NOT_CHECKED why it stamps none`)).toEqual([]);
  // Lines of mutations now checked, routed or gone leave the tables.
  expect(Object.keys(NOT_CHECKED).filter((name) => !unchecked.includes(name))).toEqual([]);
  expect(Object.keys(ARGUMENTS).filter((name) => !writes.some((f) => f.name === name))).toEqual([]);
  expect(writes.length).toBeGreaterThanOrEqual(8);
});
