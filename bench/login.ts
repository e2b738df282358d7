/** A bearer token for the seeded tenant's administrator, from the app child's token endpoint. */
import type { Child } from './children.js';
import type { Seeded } from './seed.js';

export async function login(app: Child, s: Pick<Seeded, 'clientId' | 'clientSecret' | 'adminUserId' | 'password'>): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${app.port}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: s.clientId,
      client_secret: s.clientSecret,
      username: s.adminUserId,
      password: s.password,
    }).toString(),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`login failed: HTTP ${res.status} ${text.slice(0, 300)}`);
  return (JSON.parse(text) as { access_token: string }).access_token;
}
