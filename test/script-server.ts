/**
 * A real script server for the tests: a plain HTTP server that speaks the outside process's
 * protocol as the public script server (nodeJs-rest-client-library's app.js) does. `POST
 * /scripts?id=` takes `{script, baseUrl, fields}` (or the same as an array of {Key, Value}), runs
 * the script's `main(ffCollection, vvClient, response)` in a fresh VM context, and answers what
 * the script writes with `response.json(status, body)`; a script that throws answers HTTP 200
 * `{code: 500, error}`. `POST /scheduledscripts?id=` takes `{script, baseUrl, token}` and runs
 * `main(vvClient, response, token)`. Written for these tests; no code of that server is used.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import vm from 'node:vm';

export interface ScriptCall {
  id: string | null;
  authorization: string | undefined;
  path: string;
  body: { script: string; baseUrl: string; fields?: string; usId?: string; token?: string };
}

export interface TestScriptServer {
  url: string;
  calls: ScriptCall[];
  close(): Promise<void>;
}

type Reply = { json(status: number, body: unknown): void; send(text: string): void };

export async function startScriptServer(): Promise<TestScriptServer> {
  const calls: ScriptCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://script-server');
      if (req.method !== 'POST' || (url.pathname !== '/scripts' && url.pathname !== '/scheduledscripts')) {
        res.writeHead(404).end('not found');
        return;
      }
      let body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScriptCall['body'] | { Key: string; Value: string }[];
      if (Array.isArray(body)) body = Object.fromEntries(body.map((kv) => [kv.Key, kv.Value])) as ScriptCall['body'];
      calls.push({ id: url.searchParams.get('id'), path: url.pathname, authorization: req.headers.authorization, body });
      let answered = false;
      const response: Reply = {
        json(status, out) {
          answered = true;
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(out));
        },
        send(text) {
          answered = true;
          res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
        },
      };
      const failed = (err: unknown) => {
        // The script's errors come from the VM's realm: not instances of this realm's Error.
        if (!answered) response.json(200, { code: 500, error: (err as { message?: string }).message ?? String(err) });
      };
      try {
        const module = { exports: {} as { main?: (...args: unknown[]) => unknown } };
        vm.runInNewContext(body.script, { module, fetch, setTimeout, JSON, baseUrl: body.baseUrl });
        const main = module.exports.main!;
        const ran = url.pathname === '/scripts' ? main(JSON.parse(body.fields ?? '[]'), null, response) : main(null, response, body.token);
        Promise.resolve(ran).catch(failed);
      } catch (err) {
        failed(err);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
