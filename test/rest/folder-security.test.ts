/**
 * Folder security (client-compatibility.md: `GET folders/{id}/securitymembers`, `PUT|DELETE
 * folders/{id}/securitymembers/{memberId}` with `{memberType, securityRole, cascadeSecurityChanges}`;
 * the .NET client's `PUT folders/{id}/securitymembers` and `data.successCount`; the Node client's
 * generic `securitymembers` routes): members and roles, cascades, inheritance,
 * and what a folder with members hides from everyone else, its documents and index fields included.
 */
import { type Api, createGroup, createUser, expectAsUnknown, expectEnvelope, expectError, keysOf, q, sorted, uniq, UNKNOWN_ID, whileHeld } from './support.js';
import { A, B, h, plain, setUpTwoTenants } from './two-tenants.js';
import { IDS_A_STATEMENT } from '../../src/db/tenant-writes.js';
import { MAX_CHANGES } from '../../src/domain/folder-security.js';

const MEMBER_KEYS = ['href', 'dataType', 'parentId', 'memberId', 'memberName', 'memberType', 'memberRole', 'memberRoleValue'];
/** What `fields=` or `expand=data` adds to a member in a list, and what a change's `member` carries whole. */
const AUDIT_KEYS = ['createDate', 'modifyDate', 'createById', 'modifyById', 'createBy', 'modifyBy'];

/** The ordinary user's own view. */
let U: Api;

setUpTwoTenants();
beforeAll(async () => {
  U = A.as(plain.token);
});

type Folder = { id: string; folderPath: string; name: string };
const newFolder = async (path = `/${uniq('Secure')}`): Promise<Folder> => (await A.post('/folders', { folderpath: path })).body.data;
const member = (folderId: string, memberId: string, body: Record<string, unknown>) => A.put(`/folders/${folderId}/securitymembers/${memberId}`, body);
const members = async (folderId: string) => (await A.get(`/folders/${folderId}/securitymembers`)).body.data as Record<string, unknown>[];
/** Members as [id, role], in the list's order. */
const roles = (list: Record<string, unknown>[]) => list.map((m) => [m.memberId, m.memberRole]);
/** The .NET client's UpdateSecurityMembers. */
const bulk = (folderId: string, body: Record<string, unknown>) => A.put(`/folders/${folderId}/securitymembers`, body);

/** `n` subfolders of top-level folder `top`, made in one statement: thousands of creates through the API would take minutes. */
const subfolders = (top: { id: string; folderPath: string }, n: number) =>
  h.services.reads.query(
    `insert into folder (tenant_id, id, parent_id, top_id, name, path)
     select $1, gen_random_uuid(), $2, $2, 'c' || i, $3 || '/c' || i from generate_series(1, $4::int) i`,
    [A.t.tenantId, top.id, top.folderPath, n],
  );

describe('members', () => {
  test('PUT folders/{id}/securitymembers/{memberId} as the Node client sends it: 200, successCount and the member; GET lists it', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    const r = await member(folder.id, user.id, { memberType: 0, securityRole: 2, cascadeSecurityChanges: false });
    expectEnvelope(r, 'PUT', A.url(`/folders/${folder.id}/securitymembers/${user.id}`));
    expect(keysOf(r.body.data)).toEqual(['member', 'successCount']);
    expect(r.body.data.successCount).toBe(1);
    expect(keysOf(r.body.data.member)).toEqual(sorted([...MEMBER_KEYS, ...AUDIT_KEYS]));
    expect(r.body.data.member).toMatchObject({
      dataType: 'SecurityMember',
      href: `~/folders/${folder.id}/securitymembers/${user.id}`,
      parentId: folder.id,
      memberId: user.id,
      memberName: user.name,
      memberType: 0,
      memberRole: 2,
      memberRoleValue: 'Editor',
    });
    const group = await createGroup(A);
    expect((await member(folder.id, group.id, { memberType: 1, securityRole: 'Viewer' })).body.data.member).toMatchObject({ memberType: 1, memberRole: 4, memberName: group.name });
    // Found from the id when memberType is left out; a new role replaces the old.
    expect((await member(folder.id, user.id, { securityRole: 1 })).body.data.member.memberRoleValue).toBe('Owner');
    const list = await A.get(`/folders/${folder.id}/securitymembers`);
    expectEnvelope(list, 'GET', A.url(`/folders/${folder.id}/securitymembers`));
    expect(list.body.pagination.totalRecords).toBe(2);
    expect(list.body.data.map((m: Record<string, unknown>) => [m.memberId, m.memberRole])).toEqual([[user.id, 1], [group.id, 4]]);
    expect((await A.get(`/folders/${folder.id}/securitymembers?${q('memberType eq 1')}`)).body.data).toHaveLength(1);
    // A member's href reads its role on this folder; on a folder where it has none, a 404.
    for (const m of list.body.data) expect((await A.get(m.href.slice(1))).body.data).toEqual(m);
    const other = await newFolder();
    expectError(await A.get(`/folders/${other.id}/securitymembers/${user.id}`), 404, /is not a security member/);
  });

  test('bad input: 400 or 404 naming the problem, and the members unchanged', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    const group = await createGroup(A);
    await member(folder.id, user.id, { securityRole: 4 });
    expectError(await member(folder.id, user.id, { securityRole: 5 }), 400, /securityRole/);
    expectError(await member(folder.id, user.id, { securityRole: 'Boss' }), 400, /securityRole/);
    // A name every object answers to is no role (they reached the database as a function: a 500).
    for (const name of ['constructor', '__proto__']) expectError(await member(folder.id, user.id, { securityRole: name }), 400, `The field 'securityRole' must be 1 (Owner), 2 (Editor), 3 (Publisher) or 4 (Viewer), got '${name}'.`);
    expectError(await member(folder.id, user.id, {}), 400, /'securityRole' is missing/);
    expectError(await member(folder.id, user.id, { securityRole: 2, memberType: 7 }), 400, /memberType/);
    expectError(await member(folder.id, user.id, { securityRole: 2, memberType: 1 }), 404, /Group/);
    expectError(await member(folder.id, group.id, { securityRole: 2, memberType: 0 }), 404, /User/);
    expectError(await member(folder.id, UNKNOWN_ID, { securityRole: 2 }), 404, /No user or group/);
    expectError(await member(UNKNOWN_ID, user.id, { securityRole: 2 }), 404, /Folder/);
    expectError(await A.del(`/folders/${folder.id}/securitymembers/${group.id}`), 404, /not a security member/);
    expectError(await A.del(`/folders/${folder.id}/securitymembers/${user.id}?cascadeSecurityChanges=maybe`), 400, /true or false/);
    // In a body it is checked as in the query string (it was a 200, the body unread).
    expectError(await A.del(`/folders/${folder.id}/securitymembers/${user.id}`, { body: { cascadeSecurityChanges: 'perhaps' } }), 400, "The field 'cascadeSecurityChanges' must be true or false, got 'perhaps'.");
    expect((await members(folder.id)).map((m) => [m.memberId, m.memberRole])).toEqual([[user.id, 4]]);
  });

  test.each([
    ['a user, PUT folders/{id}/securitymembers/{memberId}', 'user', (f: string, m: string) => member(f, m, { securityRole: 2 })],
    ['a user named as one (memberType 0)', 'user', (f: string, m: string) => member(f, m, { securityRole: 2, memberType: 0 })],
    ['a group, PUT folders/{id}/securitymembers/{memberId}', 'group', (f: string, m: string) => member(f, m, { securityRole: 2 })],
    ['a group named as one (memberType 1)', 'group', (f: string, m: string) => member(f, m, { securityRole: 2, memberType: 1 })],
    ['a user, POST securitymembers', 'user', (f: string, m: string) => A.post('/securitymembers', { parentId: f, memberId: m, role: 4, isGroup: false })],
    ['a group, PUT securitymembers', 'group', (f: string, m: string) => A.put('/securitymembers', { parentId: f, memberId: m, role: 4 })],
  ])('%s racing a delete of the member committed meanwhile: what an unknown id gets, not the foreign key\'s 404; no member added', async (_, kind, send) => {
    const folder = await newFolder();
    const m = kind === 'user' ? await createUser(A) : await createGroup(A);
    // The delete, committed while the change waits for the member's row.
    const other = { text: `delete from ${kind === 'user' ? 'app_user' : 'user_group'} where tenant_id = $1 and id = $2`, values: [A.t.tenantId, m.id] };
    const r = await whileHeld(h, other, () => send(folder.id, m.id));
    expectError(r, 404, /No user or group has the id|was not found/);
    expectAsUnknown(r, await send(folder.id, UNKNOWN_ID), m.id);
    expect(await members(folder.id)).toEqual([]);
  });

  test('cascadeSecurityChanges gives and takes the role on every folder under it too; without it, the folder alone', async () => {
    const top = await newFolder();
    const child = await newFolder(`${top.folderPath}/child`);
    const grandchild = await newFolder(`${child.folderPath}/grandchild`);
    const [one, two] = [await createUser(A), await createUser(A)];
    // successCount: the folders the change reached.
    expect((await member(top.id, one.id, { securityRole: 2, cascadeSecurityChanges: true })).body.data.successCount).toBe(3);
    expect((await member(top.id, two.id, { securityRole: 3, cascadeSecurityChanges: false })).body.data.successCount).toBe(1);
    for (const f of [child, grandchild]) expect((await members(f.id)).map((m) => m.memberId)).toEqual([one.id]);
    expect(await members(top.id)).toHaveLength(2);
    // Taken off the grandchild alone first, the cascade then takes it off two folders.
    expect((await A.del(`/folders/${grandchild.id}/securitymembers/${one.id}`)).body.data).toEqual({ successCount: 1 });
    const r = await A.del(`/folders/${top.id}/securitymembers/${one.id}?cascadeSecurityChanges=true`);
    expectEnvelope(r, 'DELETE', A.url(`/folders/${top.id}/securitymembers/${one.id}?cascadeSecurityChanges=true`));
    expect(r.body.data).toEqual({ successCount: 2 });
    for (const f of [child, grandchild]) expect(await members(f.id)).toEqual([]);
    expect((await members(top.id)).map((m) => m.memberId)).toEqual([two.id]);
  });

  test(`a cascade over 11,000 folders gives and takes the role on all of them, their ids ${IDS_A_STATEMENT} a statement in one parameter (a tuple of parameters per folder overflowed the limit, and held 1 GB for 300,000)`, async () => {
    const top = await newFolder();
    const user = await createUser(A);
    await subfolders(top, 11_000);
    const withRole = async () =>
      (await h.services.reads.query<{ n: number }>('select count(*)::int as n from folder_member where tenant_id = $1 and user_id = $2 and role = 2', [A.t.tenantId, user.id])).rows[0].n;
    // It was a 503 saying the database was away: the one statement's parameters overflowed the protocol message.
    const given = await h.captureQueries(() => member(top.id, user.id, { securityRole: 2, cascadeSecurityChanges: true }));
    expect(given.result.body.data.successCount).toBe(11_001);
    const inserts = given.statements.filter((st) => /^insert into folder_member\b/.test(st.text));
    expect(inserts.map((st) => [st.values.length < 10, (st.values.find(Array.isArray) as unknown[]).length])).toEqual([[true, IDS_A_STATEMENT], [true, 1_001]]);
    expect(await withRole()).toBe(11_001);
    expect((await A.del(`/folders/${top.id}/securitymembers/${user.id}?cascadeSecurityChanges=true`)).body.data).toEqual({ successCount: 11_001 });
    expect(await withRole()).toBe(0);
    // Gone again, so that its rows sway no other file's plans.
    expect((await A.del(`/folders/${top.id}`)).status).toBe(200);
  });

  test('a new subfolder starts with its parent\'s members; a copied folder takes them along', async () => {
    const top = await newFolder();
    const user = await createUser(A);
    await member(top.id, user.id, { securityRole: 3 });
    const made = await newFolder(`${top.folderPath}/made/deeper`);
    expect((await members(made.id)).map((m) => [m.memberId, m.memberRole])).toEqual([[user.id, 3]]);
    const copy = (await A.post('/folders/copy', { sourceFolderId: top.id, targetFolderPath: `/${uniq('CopyOf')}` })).body.data;
    expect((await members(copy.id)).map((m) => [m.memberId, m.memberRole])).toEqual([[user.id, 3]]);
  });

  test('the generic securitymembers routes: POST (201), GET ?parentId, PUT a new role, DELETE', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    const added = await A.post('/securitymembers', { parentId: folder.id, memberId: user.id, role: 4, isGroup: false });
    expectEnvelope(added, 'POST', A.url('/securitymembers'), 201);
    expect(added.body.data).toMatchObject({ memberId: user.id, memberRole: 4 });
    expect((await A.get(`/securitymembers?parentId=${folder.id}`)).body.data.map((m: Record<string, unknown>) => m.memberId)).toEqual([user.id]);
    expect((await A.put('/securitymembers', { parentId: folder.id, memberId: user.id, role: 2 })).body.data.memberRoleValue).toBe('Editor');
    expectEnvelope(await A.del(`/securitymembers?parentId=${folder.id}&memberId=${user.id}`), 'DELETE', A.url(`/securitymembers?parentId=${folder.id}&memberId=${user.id}`));
    expect(await members(folder.id)).toEqual([]);
    expectError(await A.post('/securitymembers', { memberId: user.id, role: 4 }), 400, /parentId/);
  });

  test('two role changes of one member at once: one row, with one of the roles', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    const replies = await Promise.all([1, 2, 3, 4].map((role) => member(folder.id, user.id, { securityRole: role })));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const list = await members(folder.id);
    expect(list).toHaveLength(1);
    expect([1, 2, 3, 4]).toContain(list[0].memberRole);
  });

  /** A race's answer: 200, or the status with the errors it gave, so that a rare loss says why. */
  const outcome = (r: { status: number; body: { meta?: { errors?: unknown } } }) => (r.status === 200 ? 200 : `${r.status} ${JSON.stringify(r.body?.meta?.errors)}`);

  /** /CasN/a/b/c, fresh for each race. */
  async function subtree(prefix: string) {
    const top = await newFolder(`/${uniq(prefix)}`);
    const a = await newFolder(`${top.folderPath}/a`);
    const b = await newFolder(`${a.folderPath}/b`);
    const c = await newFolder(`${b.folderPath}/c`);
    return { top, a, ids: [top.id, a.id, b.id, c.id].sort() };
  }
  /** Which of the folders `ids` exist, and which have the member, as stored (no row rule). */
  async function stored(ids: string[], memberId: string) {
    const read = async (text: string, values: unknown[]) => (await h.services.reads.query(text, [A.t.tenantId, ids, ...values])).rows.map((r: { id: string }) => r.id).sort();
    return {
      folders: await read('select id from folder where tenant_id = $1 and id = any($2::uuid[])', []),
      member: await read('select folder_id as id from folder_member where tenant_id = $1 and folder_id = any($2::uuid[]) and member_id = $3', [memberId]),
    };
  }

  test.each([
    ['PUT folders/{id}/securitymembers/{memberId}', (f: string, m: string) => member(f, m, { memberType: 0, securityRole: 2, cascadeSecurityChanges: true }), [1, 4]],
    ['PUT folders/{id}/securitymembers', (f: string, m: string) => bulk(f, { securityActions: [{ memberId: m, roleType: 2 }], cascadeSecurityChanges: true }), [1]],
  ])('%s with the cascade racing a delete of a folder under it: both 200, in one order or the other; the member on every folder left', async (_, send, counts) => {
    const user = await createUser(A);
    for (let i = 0; i < 20; i++) {
      const t = await subtree('cas');
      const [set, gone] = await Promise.all([send(t.top.id, user.id), A.del(`/folders/${t.a.id}`)]);
      expect([set, gone].map(outcome)).toEqual([200, 200]);
      // The single PUT reached 4 folders when it went first (the delete then took the subtree and its members), 1 when the delete did.
      expect(counts).toContain(set.body.data.successCount);
      expect(await stored(t.ids, user.id)).toEqual({ folders: [t.top.id], member: [t.top.id] });
    }
  });

  test('DELETE folders/{id}/securitymembers/{memberId} with the cascade racing a delete of a folder under it: both 200, the member off every folder left', async () => {
    const user = await createUser(A);
    for (let i = 0; i < 20; i++) {
      const t = await subtree('uncas');
      expect((await member(t.top.id, user.id, { securityRole: 2, cascadeSecurityChanges: true })).body.data.successCount).toBe(4);
      const [off, gone] = await Promise.all([A.del(`/folders/${t.top.id}/securitymembers/${user.id}?cascadeSecurityChanges=true`), A.del(`/folders/${t.a.id}`)]);
      expect([off, gone].map(outcome)).toEqual([200, 200]);
      expect([1, 4]).toContain(off.body.data.successCount);
      expect(await stored(t.ids, user.id)).toEqual({ folders: [t.top.id], member: [] });
    }
  });

  test('a cascade racing a move of a folder under it out of it, or of the folder above it: both 200, no deadlock; a subtree moved out has the member everywhere or nowhere', async () => {
    const user = await createUser(A);
    const cascade = (f: Folder) => member(f.id, user.id, { memberType: 0, securityRole: 2, cascadeSecurityChanges: true });
    for (let i = 0; i < 20; i++) {
      const out = await newFolder();
      let t = await subtree('casout');
      const [set, moved] = await Promise.all([cascade(t.top), A.put('/folders/move', { sourceFolderId: t.a.id, targetFolderId: out.id })]);
      expect([set, moved].map(outcome)).toEqual([200, 200]);
      const under = t.ids.filter((id) => id !== t.top.id);
      expect([[t.top.id], t.ids]).toContainEqual((await stored(t.ids, user.id)).member);
      expect(set.body.data.successCount).toBe((await stored(under, user.id)).member.length + 1);

      const above = await newFolder();
      t = await subtree('casabove');
      expect((await A.put('/folders/move', { sourceFolderId: t.top.id, targetFolderId: above.id })).status).toBe(200);
      const replies = await Promise.all([cascade(t.top), A.put('/folders/move', { sourceFolderId: above.id, targetFolderPath: `/${uniq('elsewhere')}` })]);
      expect(replies.map(outcome)).toEqual([200, 200]);
      expect(await stored(t.ids, user.id)).toEqual({ folders: t.ids, member: t.ids });
    }
  });

  test.each(['user', 'group'])('DELETE folders/{id}/securitymembers/{memberId} racing a delete of the %s committed meanwhile (its memberships go with it): the 404 of a non-member, not a 200 that took nothing off', async (kind) => {
    const folder = await newFolder();
    const m = kind === 'user' ? await createUser(A) : await createGroup(A);
    await member(folder.id, m.id, { securityRole: 4 });
    // The delete, committed while the removal waits for the membership's row: it takes no folder's lock.
    const hold = { text: `delete from ${kind === 'user' ? 'app_user' : 'user_group'} where tenant_id = $1 and id = $2`, values: [A.t.tenantId, m.id] };
    const r = await whileHeld(h, hold, () => A.del(`/folders/${folder.id}/securitymembers/${m.id}`));
    expectError(r, 404, `'${m.id}' is not a security member of folder '${folder.folderPath}'.`);
    expect(await members(folder.id)).toEqual([]);
  });

  test('a deleted user or group is no member any more', async () => {
    const folder = await newFolder();
    const group = await createGroup(A);
    await member(folder.id, group.id, { securityRole: 4 });
    await A.del(`/groups/${group.id}`);
    expect(await members(folder.id)).toEqual([]);
  });
});

describe("the .NET client's FoldersManager (it reads data.successCount)", () => {
  test('AddSecurityMember and RemoveSecurityMember: successCount 1, as its FolderTests expect', async () => {
    const folder = await newFolder();
    const group = await createGroup(A);
    // AddSecurityMember(folderId, memberId, MemberType.Group, RoleType.Editor): its ExpandoObject, enums as numbers.
    const added = await member(folder.id, group.id, { memberType: 1, securityRole: 2, cascadeSecurityChanges: false });
    expect(added.body.data).toMatchObject({ successCount: 1, member: { memberId: group.id, memberType: 1, memberRole: 2 } });
    const removed = await A.del(`/folders/${folder.id}/securitymembers/${group.id}?cascadeSecurityChanges=false`);
    expectEnvelope(removed, 'DELETE', A.url(`/folders/${folder.id}/securitymembers/${group.id}?cascadeSecurityChanges=false`));
    expect(removed.body.data).toEqual({ successCount: 1 });
    expect(await members(folder.id)).toEqual([]);
  });

  // UpdateSecurityMembers: Newtonsoft with camelCase names and DefaultValueHandling.Ignore, so an
  // enum at 0 (Action Add, MemberType User, RoleType None) is left out; the others are numbers.
  test('UpdateSecurityMembers: PUT folders/{id}/securitymembers {securityActions, cascadeSecurityChanges}; successCount counts the actions', async () => {
    const top = await newFolder();
    const child = await newFolder(`${top.folderPath}/child`);
    const [group, user] = [await createGroup(A), await createUser(A)];
    // Its FolderTests' SetSecurityMembersOnFolder: two Adds, cascading, expect 2.
    const body = { securityActions: [{ roleType: 4, memberId: group.id, memberType: 1 }, { roleType: 1, memberId: user.id }], cascadeSecurityChanges: true };
    const r = await bulk(top.id, body);
    expectEnvelope(r, 'PUT', A.url(`/folders/${top.id}/securitymembers`));
    expect(r.body.data).toEqual({ successCount: 2 });
    for (const f of [top, child]) expect(roles(await members(f.id))).toEqual([[user.id, 1], [group.id, 4]]);
    // A Remove (action 1, role None left out) without the cascade: the folder alone.
    expect((await bulk(top.id, { securityActions: [{ memberId: user.id, action: 1 }], cascadeSecurityChanges: false })).body.data).toEqual({ successCount: 1 });
    expect(roles(await members(top.id))).toEqual([[group.id, 4]]);
    expect(roles(await members(child.id))).toEqual([[user.id, 1], [group.id, 4]]);
    // The enums by name, keys in any case; applied in order (Add, then a new role, then Remove).
    const named = [
      { Action: 'Add', MemberId: user.id, MemberType: 'User', RoleType: 'Publisher' },
      { ACTION: 'add', memberid: user.id, roletype: 'editor' },
      { action: 'Remove', memberId: group.id, memberType: 'Group', roleType: 'None' },
    ];
    expect((await bulk(top.id, { SecurityActions: named, CascadeSecurityChanges: true })).body.data).toEqual({ successCount: 3 });
    for (const f of [top, child]) expect(roles(await members(f.id))).toEqual([[user.id, 2]]);
    // An empty list changes nothing.
    expect((await bulk(top.id, { securityActions: [] })).body.data).toEqual({ successCount: 0 });
  });

  test(`UpdateSecurityMembers: actions times the folders they cascade over past ${MAX_CHANGES} is a 400 naming the counts, before any change (1,000 actions over 100,000 folders would hold them locked for hours)`, async () => {
    const top = await newFolder();
    const user = await createUser(A);
    await subfolders(top, 1000);
    const securityActions = Array.from({ length: 1000 }, () => ({ memberId: user.id, roleType: 2 }));
    expectError(
      await bulk(top.id, { securityActions, cascadeSecurityChanges: true }),
      400,
      `The 1000 actions over 1001 folders would make 1001000 changes; one request makes at most ${MAX_CHANGES}: send fewer actions at a time.`,
    );
    expect(await members(top.id)).toEqual([]);
    // Without the cascade, the same actions reach the one folder.
    expect((await bulk(top.id, { securityActions })).body.data).toEqual({ successCount: 1000 });
    expect((await members(top.id)).map((m) => m.memberId)).toEqual([user.id]);
    expect((await A.del(`/folders/${top.id}`)).status).toBe(200);
  });

  test('UpdateSecurityMembers, all or none: a bad action is a 400 naming its index and key, an unknown member a 404 naming it; nothing changes', async () => {
    const folder = await newFolder();
    const [user, other] = [await createUser(A), await createUser(A)];
    await member(folder.id, user.id, { securityRole: 4 });
    const add = { memberId: other.id, roleType: 2 };
    const refusals: [unknown, number, RegExp][] = [
      [[add, { memberId: user.id, roleType: 5 }], 400, /'securityActions\[1\]\.roleType' must be 1 \(Owner\)/],
      [[add, { memberId: user.id, roleType: 'None' }], 400, /'securityActions\[1\]\.roleType'/],
      [[add, { memberId: user.id }], 400, /'securityActions\[1\]\.roleType' is missing/],
      [[add, add, { memberId: user.id, action: 2 }], 400, /'securityActions\[2\]\.action' must be 0 \(Add\) or 1 \(Remove\)/],
      [[add, { memberId: user.id, roleType: 1, memberType: 3 }], 400, /'securityActions\[1\]\.memberType'/],
      [[add, { roleType: 1 }], 400, /'securityActions\[1\]\.memberId' is missing/],
      [[add, { memberId: 'nobody', roleType: 1 }], 400, /^The field 'securityActions\[1\]\.memberId' must be a GUID, got "nobody"\.$/],
      [[add, null], 400, /^The field 'securityActions\[1\]' takes objects with the keys .*, got null\.$/],
      [undefined, 400, /'securityActions' is missing/],
      [Array.from({ length: 1001 }, () => add), 400, /at most 1000 actions/],
      // Refused after the first action was written: the transaction undoes it.
      [[add, { memberId: UNKNOWN_ID, roleType: 1 }], 404, new RegExp(`No user or group has the id '${UNKNOWN_ID}'`)],
      [[add, { memberId: user.id, memberType: 1, roleType: 1 }], 404, new RegExp(`Group '${user.id}' was not found`)],
      [[add, { memberId: user.id, action: 1 }, { memberId: user.id, action: 1 }], 404, new RegExp(`'${user.id}' is not a security member`)],
    ];
    for (const [securityActions, status, message] of refusals) {
      expectError(await bulk(folder.id, { securityActions, cascadeSecurityChanges: false }), status, message);
      expect(roles(await members(folder.id))).toEqual([[user.id, 4]]);
    }
    expectError(await bulk(UNKNOWN_ID, { securityActions: [add] }), 404, /Folder/);
  });

  test('UpdateSecurityMembers needs what the single-member writes need: Owner, and with the cascade Owner of every folder under it; refused, nothing changes', async () => {
    const top = await newFolder();
    const sub = await newFolder(`${top.folderPath}/sub`);
    const other = await createUser(A);
    const add = { securityActions: [{ memberId: other.id, roleType: 4 }] };
    await member(top.id, plain.id, { securityRole: 2, cascadeSecurityChanges: true });
    expectError(await U.put(`/folders/${top.id}/securitymembers`, add), 403, /Owner/);
    await member(top.id, plain.id, { securityRole: 1 });
    expectError(await U.put(`/folders/${top.id}/securitymembers`, { ...add, cascadeSecurityChanges: true }), 403, /not an Owner of 1 of them/);
    expect(roles(await members(top.id))).toEqual([[plain.id, 1]]);
    expect(roles(await members(sub.id))).toEqual([[plain.id, 2]]);
    // A folder the caller may not see is a 404, as its read is.
    const hidden = await newFolder();
    await member(hidden.id, other.id, { securityRole: 1 });
    expectError(await U.put(`/folders/${hidden.id}/securitymembers`, add), 404, /Folder/);
    expectError(await B.put(`/folders/${top.id}/securitymembers`, add), 404, /Folder/);
    expect(roles(await members(hidden.id))).toEqual([[other.id, 1]]);
    // The Owner of the folder alone changes it without the cascade.
    expect((await U.put(`/folders/${top.id}/securitymembers`, add)).body.data).toEqual({ successCount: 1 });
    expect(roles(await members(top.id))).toEqual([[plain.id, 1], [other.id, 4]]);
  });

  test("UpdateSecurityMembers waits for the folder's lock: a Remove racing a delete of the member committed meanwhile is the 404 of a non-member; nothing changes", async () => {
    const folder = await newFolder();
    const [user, other] = [await createUser(A), await createUser(A)];
    await member(folder.id, user.id, { securityRole: 4 });
    const hold = {
      text: 'delete from folder_member where tenant_id = $1 and member_id = $3 and folder_id = (select id from folder where tenant_id = $1 and id = $2 for update)',
      values: [A.t.tenantId, folder.id, user.id],
    };
    const r = await whileHeld(h, hold, () => bulk(folder.id, { securityActions: [{ memberId: user.id, action: 1 }, { memberId: other.id, roleType: 2 }] }));
    expectError(r, 404, /is not a security member/);
    expect(await members(folder.id)).toEqual([]);
  });

  test('GraphQL: updateFolderSecurityMembers', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    const r = await A.gql('mutation ($f: UUID!, $i: SecurityActionsInput!) { updateFolderSecurityMembers(folderId: $f, input: $i) { successCount } }', {
      f: folder.id,
      i: { securityActions: [{ memberId: user.id, roleType: 'Owner' }, { memberId: user.id, action: 'Add', roleType: '3' }] },
    });
    expect(r.body).toEqual({ data: { updateFolderSecurityMembers: { successCount: 2 } } });
    expect(roles(await members(folder.id))).toEqual([[user.id, 3]]);
    // A folder without members: only administrators change it.
    const open = await newFolder();
    const refused = await U.gql('mutation ($f: UUID!, $m: UUID!) { updateFolderSecurityMembers(folderId: $f, input: { securityActions: [{ memberId: $m, roleType: "1" }] }) { successCount } }', { f: open.id, m: plain.id });
    expect(refused.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect(await members(open.id)).toEqual([]);
  });

  test('GraphQL: setFolderSecurityMember answers successCount and the member, removeFolderSecurityMember successCount', async () => {
    const top = await newFolder();
    await newFolder(`${top.folderPath}/child`);
    const user = await createUser(A);
    const set = await A.gql(
      'mutation ($f: UUID!, $m: UUID!) { setFolderSecurityMember(folderId: $f, memberId: $m, input: { securityRole: "Viewer", cascadeSecurityChanges: true }) { successCount member { memberId memberRole } } }',
      { f: top.id, m: user.id },
    );
    expect(set.body).toEqual({ data: { setFolderSecurityMember: { successCount: 2, member: { memberId: user.id, memberRole: 4 } } } });
    const removed = await A.gql('mutation ($f: UUID!, $m: UUID!) { removeFolderSecurityMember(folderId: $f, memberId: $m) { successCount } }', { f: top.id, m: user.id });
    expect(removed.body).toEqual({ data: { removeFolderSecurityMember: { successCount: 1 } } });
  });
});

describe('what members see', () => {
  test('a folder with members hides itself, its documents and index fields from everyone else; a group opens it', async () => {
    const folder = await newFolder();
    const field = (await A.post('/indexfields', { label: uniq('Secret'), fieldType: 'Text' })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
    const doc = (await A.post('/documents', { folderId: folder.id, name: uniq('Hidden') })).body.data;
    const paths = [
      `/folders/${folder.id}`,
      `/folders/${folder.id}/folders`,
      `/folders/${folder.id}/documents`,
      `/folders/${folder.id}/indexfields`,
      `/folders/${folder.id}/indexfields/${field.id}`,
      `/folders/${folder.id}/securitymembers`,
      `/documents/${doc.documentId}`,
      `/documents/${doc.documentId}/revisions`,
      `/documents/${doc.documentId}/indexfields`,
    ];
    for (const p of paths) expect([p, (await U.get(p)).status]).toEqual([p, 200]);

    const other = await createUser(A);
    await member(folder.id, other.id, { securityRole: 4 });
    for (const p of paths) expect([p, (await U.get(p)).status]).toEqual([p, 404]);
    expectError(await U.get(`/folders?folderPath=${encodeURIComponent(folder.folderPath)}`), 404);
    expect((await U.get(`/folders?folderpath=/&limit=2000`)).body.data.map((f: Folder) => f.id)).not.toContain(folder.id);
    expect((await U.get(`/documents?${q(`name eq '${doc.name}'`)}`)).body.data).toEqual([]);
    // The administrator sees it all.
    for (const p of paths) expect([p, (await A.get(p)).status]).toEqual([p, 200]);

    const group = await createGroup(A);
    await A.put(`/groups/${group.id}/users`, { userIds: plain.id });
    await member(folder.id, group.id, { securityRole: 4 });
    for (const p of paths) expect([p, (await U.get(p)).status]).toEqual([p, 200]);
    expect((await U.get(`/documents?${q(`name eq '${doc.name}'`)}`)).body.data).toHaveLength(1);
  });

  test("a member sees the folder; the folder beside it, with other members, stays hidden; GraphQL hides alike", async () => {
    const mine = await newFolder();
    const theirs = await newFolder();
    await member(mine.id, plain.id, { securityRole: 4 });
    await member(theirs.id, (await createUser(A)).id, { securityRole: 4 });
    expect((await U.get(`/folders/${mine.id}`)).status).toBe(200);
    expect((await U.get(`/folders/${theirs.id}`)).status).toBe(404);
    const r = await U.gql('query ($a: UUID!) { a: childFolders(id: $a) { totalRecords } topFolders(limit: 2000) { items { id } } }', { a: mine.id });
    expect(r.body.errors).toBeUndefined();
    const hidden = await U.gql('query ($b: UUID!) { folder(id: $b) { id } }', { b: theirs.id });
    expect(hidden.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const ids = r.body.data.topFolders.items.map((f: Folder) => f.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
  });

  test('a new folder whose name a hidden folder beside it has: a 409 to choose another name, and nothing made', async () => {
    const top = await newFolder();
    await member(top.id, plain.id, { securityRole: 2 });
    const hidden = (await A.post(`/folders/${top.id}`, { name: 'Hidden' })).body.data as Folder;
    // Its members: the administrator alone (a folder without members is open to everyone).
    await member(hidden.id, (await A.get('/users/me')).body.data.id, { securityRole: 1 });
    await A.del(`/folders/${hidden.id}/securitymembers/${plain.id}`);
    expectError(await U.get(`/folders/${hidden.id}`), 404);
    const message = `A folder named 'hidden' already exists in '${top.folderPath}' (one you may not see): choose another name.`;
    expectError(await U.post(`/folders/${top.id}`, { name: 'hidden' }), 409, message);
    expect((await A.get(`/folders/${top.id}/folders`)).body.data.map((f: Folder) => f.name)).toEqual(['Hidden']);
  });
});

describe('what roles allow', () => {
  test('Viewer reads; Publisher adds documents; Editor changes them and makes subfolders; Owner deletes and manages', async () => {
    const folder = await newFolder();
    const other = await newFolder();
    const field = (await A.post('/indexfields', { label: uniq('Role'), fieldType: 'Text' })).body.data;
    await A.put(`/indexfields/${field.id}/folders/${folder.id}`);
    const adminDoc = (await A.post('/documents', { folderId: folder.id, name: uniq('AdminDoc') })).body.data;
    const as = (role: number) => member(folder.id, plain.id, { memberType: 0, securityRole: role });

    await as(4);
    expect((await U.get(`/folders/${folder.id}/documents`)).body.data).toHaveLength(1);
    expectError(await U.post('/documents', { folderId: folder.id, name: 'no' }), 403, /Publisher/);
    expectError(await U.put(`/documents/${adminDoc.id}/indexfields/${field.id}`, { value: 'no' }), 403, /Editor/);
    expectError(await U.post(`/folders/${folder.id}`, { name: 'no' }), 403, /Editor/);

    await as(3);
    const mine = await U.post('/documents', { folderId: folder.id, name: uniq('Published') });
    expect(mine.status).toBe(200);
    expectError(await U.del(`/documents/${adminDoc.documentId}`), 403, /Editor/);
    expectError(await U.put(`/folders/${folder.id}`, { description: 'no' }), 403, /Editor/);

    // Editor through a group.
    await A.del(`/folders/${folder.id}/securitymembers/${plain.id}`);
    const group = await createGroup(A);
    await A.put(`/groups/${group.id}/users`, { userIds: plain.id });
    await member(folder.id, group.id, { securityRole: 2 });
    expect((await U.put(`/documents/${adminDoc.id}/indexfields/${field.id}`, { value: 'edited' })).body.data.value).toBe('edited');
    expect((await U.put(`/documents/${adminDoc.id}/expiration`, { expirationDate: '2030-01-01T00:00:00Z' })).status).toBe(200);
    expect((await U.post(`/folders/${folder.id}`, { name: 'sub' })).status).toBe(200);
    expect((await U.put(`/folders/${folder.id}`, { description: 'renamed by an editor' })).status).toBe(200);
    expect((await U.del(`/documents/${mine.body.data.documentId}`)).status).toBe(200);
    // A move needs Publisher on the target too; the folder beside it is open, so only administrators add there.
    expectError(await U.put(`/documents/${adminDoc.documentId}/move`, { folderId: other.id }), 403, /into a folder/);
    expectError(await U.post('/documents', { folderId: other.id, name: 'no' }), 403, /Publisher/);
    expectError(await U.del(`/folders/${folder.id}`), 403, /Owner/);
    expectError(await U.put(`/folders/${folder.id}/securitymembers/${plain.id}`, { securityRole: 1 }), 403, /Owner/);
    expectError(await U.put(`/indexfields/${field.id}/folders/${folder.id}`), 403, /Owner/);

    await as(1);
    expect((await U.put(`/folders/${folder.id}/securitymembers/${(await createUser(A)).id}`, { securityRole: 4 })).status).toBe(200);
    expect((await U.put(`/folders/${folder.id}/indexfields/${field.id}`, { defaultValue: 'owner' })).status).toBe(200);
    // The subfolder the group's Editor made is the group's, with Editor: deleting the folder would delete it too.
    expectError(await U.del(`/folders/${folder.id}`), 403, /not an Owner of 1 of them/);
    await member(folder.id, plain.id, { memberType: 0, securityRole: 1, cascadeSecurityChanges: true });
    expect((await U.del(`/folders/${folder.id}`)).status).toBe(200);
    expectError(await A.get(`/folders/${folder.id}`), 404);
  });

  test('a body that names no folder or document (or no GUID) is the 400 an administrator gets, not a refusal', async () => {
    const doc = (await A.post('/documents', { folderId: (await newFolder()).id, name: uniq('Body') })).body.data;
    const writes: [string, string, Record<string, unknown>, RegExp][] = [
      ['POST', '/documents', { name: 'no folder' }, /'folderId' is missing/],
      ['POST', '/documents', { folderId: 'not-a-guid', name: 'bad' }, /'folderId' must be a GUID/],
      ['POST', `/documents/${doc.documentId}/copy`, {}, /'folderId' is missing/],
      ['POST', '/files', { fileName: 'a.txt' }, /'documentId' is missing/],
      ['POST', '/securitymembers', { memberId: plain.id, memberType: 0, securityRole: 4 }, /'parentId' is missing/],
    ];
    const documents = async () => (await A.get('/documents?limit=1')).body.pagination.totalRecords as number;
    const before = await documents();
    for (const [method, path, body, message] of writes) {
      for (const api of [A, U]) expectError(await api.request(method, path, { body }), 400, message);
    }
    expect(await documents()).toBe(before);
  });
});

describe('what an Owner of a folder may do to the folders under it', () => {
  /** /Top, owned by the ordinary user; under it /Top/Theirs (another user its Owner, the ordinary user a Viewer), /Top/Hidden (another user's only), /Top/Open (no members), and /Top/Mine (the ordinary user its Owner). */
  async function tree() {
    const top = await newFolder();
    const other = await createUser(A);
    const sub = async (name: string) => (await A.post(`/folders/${top.id}`, { name, description: '', allowRevisions: true })).body.data as Folder;
    const [theirs, hidden, open, mine] = [await sub('Theirs'), await sub('Hidden'), await sub('Open'), await sub('Mine')];
    await member(theirs.id, other.id, { memberType: 0, securityRole: 1 });
    await member(theirs.id, plain.id, { memberType: 0, securityRole: 4 });
    await member(hidden.id, other.id, { memberType: 0, securityRole: 1 });
    await member(mine.id, plain.id, { memberType: 0, securityRole: 1 });
    await member(top.id, plain.id, { memberType: 0, securityRole: 1 });
    const doc = (await A.post('/documents', { folderId: hidden.id, name: uniq('Theirs') })).body.data;
    const roles = async () => Object.fromEntries(await Promise.all([theirs, hidden, open, mine].map(async (f) => [f.name, (await members(f.id)).map((m) => [m.memberId, m.memberRole])])));
    return { top, other, theirs, hidden, open, mine, doc, roles };
  }

  test('a cascading change of members needs Owner on every folder under it, those hidden from the caller too; refused, nothing changes', async () => {
    const t = await tree();
    const before = await t.roles();
    expectError(await U.put(`/folders/${t.top.id}/securitymembers/${plain.id}`, { memberType: 0, securityRole: 1, cascadeSecurityChanges: true }), 403, /not an Owner of 3 of them/);
    await member(t.top.id, t.other.id, { memberType: 0, securityRole: 2 });
    expectError(await U.del(`/folders/${t.top.id}/securitymembers/${t.other.id}?cascadeSecurityChanges=true`), 403, /not an Owner of 3 of them/);
    expectError(await U.post('/securitymembers', { parentId: t.top.id, memberId: t.other.id, role: 4, cascadeSecurityChanges: true }), 403, /not an Owner/);
    expect(await t.roles()).toEqual(before);
    // Without the cascade the Owner changes the folder alone; an administrator cascades anywhere.
    expect((await U.del(`/folders/${t.top.id}/securitymembers/${t.other.id}`)).status).toBe(200);
    expect((await member(t.top.id, plain.id, { memberType: 0, securityRole: 1, cascadeSecurityChanges: true })).status).toBe(200);
    expect((await t.roles()).Hidden).toEqual(expect.arrayContaining([[plain.id, 1]]));
    // Now an Owner of them all, the user may cascade.
    expect((await U.put(`/folders/${t.top.id}/securitymembers/${t.other.id}`, { memberType: 0, securityRole: 4, cascadeSecurityChanges: true })).status).toBe(200);
    expect((await t.roles()).Theirs).toEqual(expect.arrayContaining([[t.other.id, 4]]));
  });

  test('deleting a folder needs Owner on every folder under it; refused, the folders and their documents stay', async () => {
    const t = await tree();
    expectError(await U.del(`/folders/${t.top.id}`), 403, /not an Owner of 3 of them/);
    expect((await A.get(`/folders/${t.hidden.id}`)).status).toBe(200);
    expect((await A.get(`/documents/${t.doc.documentId}`)).status).toBe(200);
    // Deleting a folder with nothing under it needs Owner on that folder alone.
    expect((await U.del(`/folders/${t.mine.id}`)).status).toBe(200);
    expect((await A.del(`/folders/${t.top.id}`)).status).toBe(200);
    expectError(await A.get(`/documents/${t.doc.documentId}`), 404);
  });
});

describe('who may', () => {
  test('only administrators and Owners change members; other tenants find nothing', async () => {
    const folder = await newFolder();
    const user = await createUser(A);
    expectError(await U.put(`/folders/${folder.id}/securitymembers/${user.id}`, { securityRole: 1 }), 403);
    expectError(await U.post('/securitymembers', { parentId: folder.id, memberId: plain.id, role: 1 }), 403);
    expect(await members(folder.id)).toEqual([]);
    await member(folder.id, user.id, { securityRole: 4 });
    // The folder now hides itself from the ordinary user: a change is a 404, as a read is.
    expectError(await U.del(`/folders/${folder.id}/securitymembers/${user.id}`), 404);
    expectError(await B.get(`/folders/${folder.id}/securitymembers`), 404);
    expectError(await B.put(`/folders/${folder.id}/securitymembers/${user.id}`, { securityRole: 1 }), 404);
    expect((await members(folder.id)).map((m) => m.memberRole)).toEqual([4]);
  });
});
