/**
 * Scripts (rest-api-v1.md "Scripts", client-compatibility.md "The outside process that runs
 * scripts"): administrators keep scripts; `POST scripts?name=` / `?id=` and `POST scripts/{id}`
 * run one on a real script server, which gets `{script, baseUrl, fields}` and may call this
 * service back; its answer is the run's `data` (200). Failures of the outside process are 502 or
 * 504, never a 500, and a run holds no transaction while it waits.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness } from '../harness.js';
import { type Started, startServer, stop } from '../server-process.js';
import { serverTenant } from '../server-tenant.js';
import { type Api, adminApi, expectEnvelope, expectError, GUID, q, uniq, UNKNOWN_ID, whileHeld } from './support.js';
import { A, B, h, origin, peer, setUpScriptServerApp, U } from './script-server-app.js';

// 5 s: eight runs at once, each calling back, take their time on a loaded machine.
setUpScriptServerApp(5);

const ECHO = `module.exports.main = async function (ffCollection, vvClient, response) {
  response.json(200, ['Success', 'got ' + ffCollection.length + ' fields', ffCollection]);
};`;

async function createScript(api: Api, source: string, name = uniq('script')) {
  const r = await api.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id name description source sourceLength createBy } }', {
    input: { name, description: 'for the tests', source },
  });
  expect(r.body.errors).toBeUndefined();
  return r.body.data.createScript as { id: string; name: string };
}

describe('running a script', () => {
  test('POST scripts?name= (any case) with the clients\' [{name, value}]: 200, data is what the script answered; the server got the script, our address and the fields', async () => {
    const s = await createScript(A, ECHO);
    const fields = [{ name: 'Form ID', value: 'F-1' }, { name: 'Amount', value: '12' }];
    const path = `/scripts?name=${encodeURIComponent(s.name.toUpperCase())}&usId=${UNKNOWN_ID}`;
    const r = await A.post(path, fields);
    expectEnvelope(r, 'POST', A.url(path));
    expect(r.body.data).toEqual(['Success', 'got 2 fields', fields]);
    const call = peer.calls.at(-1)!;
    expect(call.id).toBe(s.id);
    expect(call.body).toEqual({ script: ECHO, baseUrl: origin, fields: JSON.stringify(fields), usId: UNKNOWN_ID });
  });

  test('POST scripts?id= and POST scripts/{id} run it too; any JSON body, none as [] (the fields the script server expects), as over GraphQL', async () => {
    const s = await createScript(A, 'module.exports.main = function (f, c, response) { response.json(200, { statusCode: 200, got: f }); };');
    expect((await A.post(`/scripts?id=${s.id}`, { a: 1 })).body.data).toEqual({ statusCode: 200, got: { a: 1 } });
    expect((await U.post(`/scripts/${s.id}`, undefined, { headers: { 'content-type': 'application/json' } })).body.data).toEqual({ statusCode: 200, got: [] });
    expect((await U.post(`/scripts/${s.id}`, {})).body.data).toEqual({ statusCode: 200, got: {} });
    const g = await U.gql('mutation ($id: UUID) { runScript(id: $id) }', { id: s.id });
    expect(g.body.data.runScript).toEqual({ statusCode: 200, got: [] });
    expect((await A.post(`/scripts/${s.id}`, 'just text' as unknown)).body.data).toEqual({ statusCode: 200, got: 'just text' });
    // Any JSON, but no key sent twice in one object (JSON.parse kept the last): refused before the script server is called.
    const calls = peer.calls.length;
    const twice = await A.post(`/scripts/${s.id}`, undefined, { raw: '[{"name":"a","value":"1"},{"name":"b","value":"2","value":"3"}]', headers: { 'content-type': 'application/json' } });
    expectError(twice, 400, /^The key '\[1\]\.value' was sent 2 times in the request body: send it once, with one value\.$/);
    expect(peer.calls.length).toBe(calls);
  });

  test('a script calls the service back at its own address; runs at once hold no transaction while they wait', async () => {
    const s = await createScript(A, `module.exports.main = async function (ffCollection, vvClient, response) {
      const [token, root] = [ffCollection[0].value, ffCollection[1].value];
      const made = await fetch(baseUrl + root + '/persistedData', {
        method: 'POST', headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
        body: JSON.stringify({ name: ffCollection[2].value, persistedData: '{}' }),
      });
      const body = await made.json();
      response.json(200, ['Success', body.meta.status, body.data && body.data.name]);
    };`);
    // More runs than the harness's 4 pooled connections, each calling back with a write of its own.
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        fetch(`${origin}${A.t.root}/scripts?name=${encodeURIComponent(s.name)}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${A.token}`, 'content-type': 'application/json' },
          body: JSON.stringify([{ name: 'token', value: A.token }, { name: 'root', value: A.t.root }, { name: 'name', value: `cb-${i}` }]),
        }).then((r) => r.json()),
      ),
    );
    expect(runs.map((r) => [r.meta.status, r.data])).toEqual(Array.from({ length: 8 }, (_, i) => [200, ['Success', 200, `cb-${i}`]]));
    expect(peer.calls.at(-1)!.body.baseUrl).toBe(origin);
  });

  test('a script that throws answers as the script server does: 200 with {code: 500, error}', async () => {
    const s = await createScript(A, 'module.exports.main = function () { throw new Error("no such customer"); };');
    const r = await A.post(`/scripts?name=${s.name}`, []);
    expect([r.status, r.body.data]).toEqual([200, { code: 500, error: 'no such customer' }]);
  });
});

describe('what goes wrong is a clear error, never a 500', () => {
  test('no name or id: 400; an unknown name or id: 404; another tenant\'s script: 404', async () => {
    expectError(await A.post('/scripts', []), 400, "send 'name' or 'id'");
    expectError(await A.post('/scripts?name=nosuch', []), 404, "No script is named 'nosuch'");
    expectError(await A.post(`/scripts/${UNKNOWN_ID}`, []), 404, 'was not found');
    expectError(await A.post('/scripts/not-a-guid', []), 400, 'GUID');
    const s = await createScript(A, ECHO);
    expectError(await B.post(`/scripts?name=${s.name}`, []), 404);
    expectError(await B.post(`/scripts/${s.id}`, []), 404);
  });

  test('an id and a name naming different scripts, or a query id other than the path\'s: 400, and neither runs', async () => {
    const [a, b] = [await createScript(A, ECHO), await createScript(A, ECHO)];
    const runs = peer.calls.length;
    expectError(await A.post(`/scripts?name=${a.name}&id=${b.id}`, []), 400, `The script '${b.id}' is named '${b.name}', not '${a.name}'`);
    expectError(await A.post(`/scripts?name=nosuch&id=${b.id}`, []), 400, `not 'nosuch'`);
    expectError(await A.post(`/scripts/${a.id}?id=${b.id}`, []), 400, `The path gives 'id' as '${a.id}' and the query string gives 'id' as '${b.id}'`);
    expect(peer.calls.length).toBe(runs);
    // Agreeing, in any case, they run it.
    expect((await A.post(`/scripts?name=${a.name.toUpperCase()}&id=${a.id}`, [])).status).toBe(200);
    expect((await A.post(`/scripts/${a.id}?id=${a.id.toUpperCase()}`, [])).status).toBe(200);
  });

  test("POST scripts/CompleteWorkflowScript (the clients' completion of a workflow's script): 404 saying workflows do not exist here, not a 400 about a GUID", async () => {
    const calls = peer.calls.length;
    for (const path of ['/scripts/CompleteWorkflowScript', '/Scripts/completeworkflowscript/']) {
      // As the Node and .NET clients send it.
      const r = await U.post(path, { executionId: UNKNOWN_ID, workflowVariables: {} });
      expectError(r, 404, 'POST scripts/CompleteWorkflowScript is not served: workflows do not exist in this service');
      expect(r.body.meta.errors[0].code).toBe('NOT_FOUND');
      expect(r.text).not.toMatch(/GUID|UUID/);
    }
    expect(peer.calls.length).toBe(calls);
  });

  test('a script that runs longer than SCRIPT_TIMEOUT_SECONDS: 504', async () => {
    const s = await createScript(A, 'module.exports.main = function (f, c, response) { setTimeout(() => response.json(200, "late"), 8000); };');
    expectError(await A.post(`/scripts?name=${s.name}`, []), 504, 'SCRIPT_TIMEOUT_SECONDS');
  });

  test('an answer that is not JSON, or an HTTP error from the outside process: 502; on /graphql a 200 whose error says BAD_GATEWAY', async () => {
    const text = await createScript(A, 'module.exports.main = function (f, c, response) { response.send("<html>oops</html>"); };');
    expectError(await A.post(`/scripts?name=${text.name}`, []), 502, 'not JSON');
    const failing = await createScript(A, 'module.exports.main = function (f, c, response) { response.json(500, { message: "boom" }); };');
    expectError(await A.post(`/scripts?name=${failing.name}`, []), 502, 'HTTP 500');
    // On /graphql runScript is nullable, like every root field: `data` is {runScript: null}, so 200 under either media type.
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      const g = await h.request('POST', '/graphql', { token: A.token, headers: { accept }, body: { query: 'mutation ($name: String) { runScript(name: $name) }', variables: { name: text.name } } });
      expect([accept, g.status, g.body.data, g.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)]).toEqual([accept, 200, { runScript: null }, ['BAD_GATEWAY']]);
    }
  });

  test('an answer larger than MAX_BODY_BYTES: 502, and no more of it is read', async () => {
    const small = await Harness.start({ scriptServerUrl: peer.url, maxBodyBytes: 4096 });
    try {
      const api = await adminApi(small);
      const s = await createScript(api, 'module.exports.main = function (f, c, response) { response.json(200, "x".repeat(100000)); };');
      expectError(await api.post(`/scripts?name=${s.name}`, []), 502, 'answered more than 4096 bytes (MAX_BODY_BYTES)');
    } finally {
      await small.stop();
    }
  });

  test('an outside process that cannot be reached: 502 that names the cause, not the address or its password', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const down = await Harness.start({ scriptServerUrl: `http://user:secret@127.0.0.1:${port}` });
    try {
      const api = await adminApi(down);
      const s = await createScript(api, ECHO);
      const r = await api.post(`/scripts?name=${s.name}`, []);
      expectError(r, 502, 'could not be reached or gave no answer (ECONNREFUSED)');
      expect(r.text).not.toContain('secret');
    } finally {
      await down.stop();
    }
  });

  test('an outside process that breaks off, trickles, redirects or answers JSON nested too deep: 502 or 504 saying so, never a 500; a redirect is not followed', async () => {
    // A real HTTP server that misbehaves by the script's name, as the `id` it is called with tells.
    const behaviour = new Map<string, (res: http.ServerResponse) => void>();
    const visited: string[] = [];
    const odd = http.createServer((req, res) => {
      visited.push(req.url ?? '');
      req.resume();
      req.on('end', () => behaviour.get(new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '')?.(res));
    });
    await new Promise<void>((resolve) => odd.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;
    const app = await Harness.start({ scriptServerUrl: url, scriptTimeoutSeconds: 1 });
    try {
      const api = await adminApi(app);
      const run = async (act: (res: http.ServerResponse) => void) => {
        const s = await createScript(api, ECHO);
        behaviour.set(s.id, act);
        return api.post(`/scripts?name=${s.name}`, []);
      };
      expectError(await run((res) => { res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' }); res.write('["half', () => res.destroy()); }), 502, 'broke off its answer');
      expectError(await run((res) => res.destroy()), 502, 'could not be reached or gave no answer (UND_ERR_SOCKET)');
      expectError(await run((res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.write('['); }), 504, 'SCRIPT_TIMEOUT_SECONDS');
      expectError(await run((res) => res.writeHead(302, { location: `${url}/elsewhere` }).end()), 502, 'HTTP 302 (a redirect, which is not followed)');
      expect(visited.some((v) => v.startsWith('/elsewhere'))).toBe(false);
      expectError(await run((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)), 502, 'nested more than 64 levels deep');
      // Bytes that are not UTF-8 (a Latin-1 'é' in a string): a 502, not a data string holding U+FFFD.
      expectError(await run((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from([0x22, 0x63, 0x61, 0x66, 0xe9, 0x22]))), 502, "answered bytes that are not UTF-8 (JSON's encoding)");
      // A byte order mark before the JSON, which JSON's RFC lets a reader ignore, is ignored.
      const bom = await run((res) => res.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.from('\ufeff{"ok":"caf\u00e9"}')));
      expect([bom.status, bom.body.data]).toEqual([200, { ok: 'caf\u00e9' }]);
    } finally {
      await app.stop();
      odd.closeAllConnections();
      await new Promise((resolve) => odd.close(resolve));
    }
  });

  test('a user and password in SCRIPT_SERVER_URL go to the script server as basic authentication', async () => {
    const guarded = await Harness.start({ scriptServerUrl: peer.url.replace('http://', 'http://runner:p%40ss@') });
    try {
      const api = await adminApi(guarded);
      const s = await createScript(api, ECHO);
      expect((await api.post(`/scripts?name=${s.name}`, [])).status).toBe(200);
      expect(peer.calls.at(-1)!.authorization).toBe(`Basic ${Buffer.from('runner:p@ss').toString('base64')}`);
    } finally {
      await guarded.stop();
    }
  });

  test('without SCRIPT_SERVER_URL: 503 that says so', async () => {
    const none = await Harness.start({ scriptServerUrl: undefined });
    try {
      const api = await adminApi(none);
      const s = await createScript(api, ECHO);
      expectError(await api.post(`/scripts?name=${s.name}`, []), 503, 'SCRIPT_SERVER_URL is not set');
    } finally {
      await none.stop();
    }
  });
});

describe('managing scripts (GraphQL, administrators)', () => {
  test('create, read (source only when asked for), update and delete; names unique without case (409)', async () => {
    const s = await createScript(A, ECHO);
    expect(s.id).toMatch(GUID);
    const list = await A.gql('query ($q: String) { scripts(q: $q) { totalRecords items { id name sourceLength } } }', { q: `name eq '${s.name}'` });
    expect(list.body.data.scripts).toEqual({ totalRecords: 1, items: [{ id: s.id, name: s.name, sourceLength: ECHO.length }] });
    const dup = await A.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input: { name: s.name.toUpperCase(), source: 'x' } });
    expect(dup.body.errors[0].extensions.code).toBe('CONFLICT');
    const renamed = await A.gql('mutation ($id: UUID!) { updateScript(id: $id, input: { description: "changed", source: "module.exports.main = (f, c, r) => r.json(200, 2);" }) { description source } }', { id: s.id });
    expect(renamed.body.data.updateScript).toEqual({ description: 'changed', source: 'module.exports.main = (f, c, r) => r.json(200, 2);' });
    expect((await A.post(`/scripts/${s.id}`, [])).body.data).toBe(2);
    expect((await A.gql('mutation ($id: UUID!) { deleteScript(id: $id) { success } }', { id: s.id })).body.data.deleteScript).toEqual({ success: true });
    expectError(await A.post(`/scripts/${s.id}`, []), 404);
  });

  test('sourceLength counts UTF-16 code units, as the clients\' .length does, shown and filtered alike', async () => {
    const source = `// é 中 😀 𝄞\n${ECHO}`;
    const s = await createScript(A, source);
    const list = await A.gql('query ($q: String) { scripts(q: $q) { items { id sourceLength } } }', { q: `name eq '${s.name}' and sourceLength eq ${source.length}` });
    expect(list.body.data.scripts.items).toEqual([{ id: s.id, sourceLength: source.length }]);
    expect(source.length).toBe([...source].length + 2);
  });

  test('a delete that waits for another delete of the script finds it gone: NOT_FOUND, not a second success', async () => {
    const s = await createScript(A, ECHO);
    // The other delete, committed while this one waits for the script's row.
    const other = { text: 'delete from script where tenant_id = $1 and id = $2', values: [A.t.tenantId, s.id] };
    const r = await whileHeld(h, other, () => A.gql('mutation ($id: UUID!) { deleteScript(id: $id) { success } }', { id: s.id }));
    expect(r.body.errors?.[0]).toMatchObject({ message: `Script '${s.id}' was not found.`, extensions: { code: 'NOT_FOUND' } });
  });

  test('GET scripts and GET scripts/{id} (its href) read them as GraphQL does; an ordinary user is refused (403)', async () => {
    const s = await createScript(A, ECHO);
    const list = await A.get(`/scripts?${q(`name eq '${s.name}'`)}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([expect.objectContaining({ dataType: 'Script', href: `~/scripts/${s.id}`, id: s.id, name: s.name, sourceLength: ECHO.length })]);
    expect(list.body.data[0]).not.toHaveProperty('source');
    expect((await A.get(`/scripts/${s.id}?fields=id,source`)).body.data).toMatchObject({ id: s.id, source: ECHO });
    expectError(await U.get(`/scripts/${s.id}`), 403);
    expectError(await U.get('/scripts'), 403);
    expectError(await A.get(`/scripts/${UNKNOWN_ID}`), 404);
  });

  test('bad input: a blank name or source, nothing to change: 400', async () => {
    for (const input of [{ name: ' ', source: 'x' }, { name: uniq('s'), source: ' ' }, { name: uniq('s') }]) {
      const r = await A.gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input });
      expect(r.body.errors[0].extensions.code).toBe('BAD_REQUEST');
    }
    const s = await createScript(A, ECHO);
    const r = await A.gql('mutation ($id: UUID!) { updateScript(id: $id, input: {}) { id } }', { id: s.id });
    expect(r.body.errors[0].message).toContain('Send at least one of');
  });

  test('an ordinary user runs scripts but neither reads nor changes them (403)', async () => {
    const s = await createScript(A, ECHO);
    expect((await U.post(`/scripts?name=${s.name}`, [])).status).toBe(200);
    for (const query of ['{ scripts { totalRecords } }', `{ script(id: "${s.id}") { source } }`, 'mutation { createScript(input: { name: "mine", source: "x" }) { id } }']) {
      const r = await U.gql(query);
      expect([query, r.body.errors?.[0]?.extensions?.code]).toEqual([query, 'FORBIDDEN']);
    }
  });
});

describe('the address a script calls back at, under the real server', () => {
  const PUBLIC_URL = 'https://quire.example.test/base';
  let plain: Started;
  let everywhere: Started;
  let proxied: Started;
  beforeAll(async () => {
    const env = { DATABASE_URL: process.env.QUIRE_TEST_DATABASE_URL!, SCRIPT_SERVER_URL: peer.url };
    [plain, everywhere, proxied] = await Promise.all([startServer(env), startServer({ ...env, HOST: '0.0.0.0' }), startServer({ ...env, PUBLIC_URL })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([plain, everywhere, proxied].filter(Boolean).map((s) => stop(s)));
  });

  /** `method path` on `s` with `Host: attacker.example:8443`, the answer's status. */
  const forged = (s: Started, token: string, method: string, path: string, body = '[]') =>
    new Promise<number>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: s.port, method, path, headers: { host: 'attacker.example:8443', authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });

  test.each([
    ['unset, the interface it listens on (HOST=127.0.0.1), as its start-up line prints it', () => [plain, `http://127.0.0.1:${plain.port}`] as const],
    ['unset, localhost when it listens on every interface (HOST=0.0.0.0)', () => [everywhere, `http://localhost:${everywhere.port}`] as const],
    ['set, PUBLIC_URL', () => [proxied, PUBLIC_URL] as const],
  ])('a run or a scheduled run asked for with a forged Host gives the script server this service\'s address, never that Host: PUBLIC_URL %s', async (_, which) => {
    const [s, own] = which();
    const t = await serverTenant(s, process.env.QUIRE_TEST_DATABASE_URL!, 'cb');
    const gql = async (query: string, variables: Record<string, unknown>) => {
      const r = await fetch(`http://127.0.0.1:${s.port}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
      return ((await r.json()) as { data: Record<string, { id: string }> }).data;
    };
    const name = uniq('cb');
    const { createScript: made } = await gql('mutation ($input: ScriptInput!) { createScript(input: $input) { id } }', { input: { name, source: ECHO } });
    await gql('mutation ($input: ScheduledProcessInput!) { createScheduledProcess(input: $input) { id } }', { input: { name, script: made.id, intervalMinutes: 60 } });
    expect(await forged(s, t.token, 'POST', `${t.root}/scripts?name=${name}`)).toBe(200);
    expect(await forged(s, t.token, 'PUT', `${t.root}/scheduledProcess/Run`, '')).toBe(200);
    const calls = peer.calls.filter((c) => c.id === made.id);
    expect(calls.map((c) => [c.path, c.body.baseUrl])).toEqual([['/scripts', own], ['/scheduledscripts', own]]);
  });
});
