/**
 * The admin CLI (`quire`). Honours DATABASE_URL and DATA_DIR like the server; on the embedded
 * database it joins a running server's instance or starts (and stops) one of its own.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { createApiClient, createTenant, listTenants } from './domain/tenants.js';
import { listApiClients, revokeApiClient } from './domain/api-clients.js';
import { isGuid } from './ids.js';
import { createUser, resetPassword } from './domain/users.js';
import { TENANT_FILTER } from './db/tenant-filter.js';
import { AppError } from './errors.js';
import { createLogger } from './log.js';
import { Site } from './entities/site.js';
import { ADMIN_GROUP } from './roles.js';
import { TenantDirectory } from './tenancy/tenant-directory.js';
import { listKeys, rotateKey } from './auth/keys.js';
import { loadKek } from './auth/kek.js';
import { keyRetentionSeconds, purgeExpired } from './purge.js';
import { createFileStore } from './storage/index.js';
import { PasswordError, readPassword } from './cli-password.js';
import { asConnectionFailure } from './start-failure.js';

const USAGE = `quire: administer a quire service

  quire tenant create --customer <alias> --database <alias> --admin <userid> [--password-stdin] [--email <addr>] [--json]
  quire tenant list [--json]     every tenant: its aliases, id, users and when it was made
  quire user create --customer <alias> --database <alias> --userid <userid> [--password-stdin]
                    [--first-name <s>] [--last-name <s>] [--email <addr>] [--site <siteId>] [--administrator] [--json]
  quire user password --customer <alias> --database <alias> --userid <userid> [--password-stdin] [--json]
                                 sets a new password: the user's sessions end and lock-outs lift
  quire client create --customer <alias> --database <alias> [--name <s>] [--user <userid>] [--json]
  quire client list --customer <alias> --database <alias> [--json]
  quire client revoke --customer <alias> --database <alias> --id <clientId> [--json]
                                 it authenticates nothing more, and its refresh and access tokens end
  quire keys list [--json]       the JWT signing keys: which signs, which are retired
  quire keys rotate [--json]     a new signing key signs from now on; the old ones verify until their tokens expire
  quire purge [--json]           delete expired tokens and persisted data, stale login throttles and signing keys past their tokens' life
  quire migrate

Passwords: --password-stdin reads one line from standard input; at a terminal, without it, you are
asked (nothing is echoed). --password <pw> also works, but leaves the password in the shell's history.

Environment: DATABASE_URL (else the embedded database under DATA_DIR, default ./data);
KEY_ENCRYPTION_KEY (else DATA_DIR's key-encryption.key) seals the signing keys.`;

class UsageError extends Error {}

function need(values: Record<string, unknown>, ...names: string[]): void {
  const missing = names.filter((n) => typeof values[n] !== 'string' || values[n] === '');
  if (missing.length) throw new UsageError(`missing ${missing.map((m) => `--${m}`).join(', ')}`);
}

function print(json: boolean, obj: Record<string, unknown>) {
  if (json) process.stdout.write(`${JSON.stringify(obj)}\n`);
  else for (const [k, v] of Object.entries(obj)) process.stdout.write(`${k}: ${v}\n`);
}

async function tenantEm(db: Database, customer: string, database: string) {
  const t = await new TenantDirectory(db.orm.em.fork()).byAliases(customer, database);
  if (!t) throw new UsageError(`no tenant ${customer}/${database}`);
  const em = db.orm.em.fork();
  em.setFilterParams(TENANT_FILTER, { id: t.id });
  return { em, tenantId: t.id };
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      customer: { type: 'string' },
      database: { type: 'string' },
      admin: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      email: { type: 'string' },
      userid: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      site: { type: 'string' },
      name: { type: 'string' },
      user: { type: 'string' },
      id: { type: 'string' },
      administrator: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const command = positionals.join(' ');
  // Asked for, the usage is the answer (stdout, exit 0); a bare `quire` is a usage error as an unknown command is.
  if (values.help || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command === '') throw new UsageError('no command given');
  const known = ['tenant create', 'tenant list', 'user create', 'user password', 'client create', 'client list', 'client revoke', 'keys list', 'keys rotate', 'purge', 'migrate'];
  if (!known.includes(command)) throw new UsageError(`unknown command '${command}'`);
  if (command === 'tenant create') need(values, 'customer', 'database', 'admin');
  if (command === 'user create' || command === 'user password') need(values, 'customer', 'database', 'userid');
  if (command === 'client create' || command === 'client list') need(values, 'customer', 'database');
  if (command === 'client revoke') {
    need(values, 'customer', 'database', 'id');
    if (!isGuid(values.id!)) throw new UsageError(`--id must be a client id (a GUID, as client list shows), got '${values.id!.slice(0, 64)}'`);
  }
  const site = values.site;
  if (command === 'user create' && site !== undefined && !isGuid(site)) {
    throw new UsageError(`--site must be a site id (a GUID: the tenant's homeSiteId, or GET sites), got '${String(site).slice(0, 64)}'`);
  }
  // Before the database opens: a prompt should not wait behind an embedded database's start.
  const password =
    command === 'tenant create' || command === 'user create' || command === 'user password'
      ? await readPassword(values.password, values['password-stdin']!, command === 'tenant create' ? `Password for ${values.admin}` : `Password for ${values.userid}`)
      : undefined;

  // Silent: stdout carries the command's output (one JSON object with --json), and the CLI
  // makes no reads through the read pool, the only thing that would log here.
  const config = loadConfig();
  // A database out of reach is said as the server says it: DATABASE_URL named, without its password.
  const db = await openDatabase(config, createLogger('silent')).catch((e: unknown) => {
    throw asConnectionFailure(e, config.databaseUrl);
  });
  // Interrupted: stop an embedded database this command started, rather than leave it running.
  process.once('SIGINT', () => void db.close().finally(() => process.exit(130)));
  try {
    if (command === 'migrate') {
      process.stdout.write('migrations applied\n');
    } else if (command === 'keys list') {
      const keys = await listKeys(db.orm.em.fork());
      const current = keys.find((k) => !k.retiredAt)?.kid;
      const retention = keyRetentionSeconds(config) * 1000;
      const rows = keys.map((k) => ({
        kid: k.kid,
        alg: k.alg,
        createdAt: k.createdAt.toISOString(),
        state: k.kid === current ? 'signing' : k.retiredAt ? 'retired' : 'verifying',
        dropAfter: k.retiredAt ? new Date(k.retiredAt.getTime() + retention).toISOString() : null,
      }));
      if (values.json) process.stdout.write(`${JSON.stringify({ keys: rows })}\n`);
      else for (const r of rows) process.stdout.write(`${r.kid}  ${r.alg}  ${r.state}  created ${r.createdAt}${r.dropAfter ? `  dropped after ${r.dropAfter}` : ''}\n`);
    } else if (command === 'keys rotate') {
      const kid = await rotateKey(db.orm.em.fork(), await loadKek(config));
      print(values.json!, { kid, note: 'running servers sign with it from their next key reload (PURGE_INTERVAL_SECONDS) or sooner' });
    } else if (command === 'purge') {
      print(values.json!, { ...(await purgeExpired(db.orm.em.fork(), config, createFileStore(config))) });
    } else if (command === 'user password') {
      const { em, tenantId } = await tenantEm(db, values.customer!, values.database!);
      print(values.json!, { ...(await resetPassword(em, tenantId, values.userid!, password!)) });
    } else if (command === 'tenant list') {
      const tenants = await listTenants(db.orm.em.fork());
      if (values.json) process.stdout.write(`${JSON.stringify({ tenants })}\n`);
      else for (const t of tenants) process.stdout.write(`${t.customerAlias}/${t.databaseAlias}  ${t.tenantId}  ${t.users} users  created ${t.createdAt}\n`);
    } else if (command === 'client list') {
      const { tenantId } = await tenantEm(db, values.customer!, values.database!);
      const clients = await listApiClients(db.orm.em.fork(), tenantId);
      if (values.json) process.stdout.write(`${JSON.stringify({ clients })}\n`);
      else for (const c of clients) process.stdout.write(`${c.clientId}  ${c.name}  user ${c.userid}  created ${c.createdAt}${c.revokedAt ? `  revoked ${c.revokedAt}` : ''}\n`);
    } else if (command === 'client revoke') {
      const { tenantId } = await tenantEm(db, values.customer!, values.database!);
      print(values.json!, { ...(await revokeApiClient(db.orm.em.fork(), tenantId, values.id!.toLowerCase())) });
    } else if (command === 'tenant create') {
      const t = await createTenant(db.orm.em, {
        customer: values.customer!,
        database: values.database!,
        admin: values.admin!,
        password: password!,
        email: values.email,
      });
      const { customerAlias, databaseAlias, clientId, clientSecret, adminUserId, homeSiteId } = t;
      print(values.json!, { customerAlias, databaseAlias, clientId, clientSecret, adminUserId, homeSiteId });
    } else if (command === 'user create') {
      const { em, tenantId } = await tenantEm(db, values.customer!, values.database!);
      const siteId = values.site ?? (await em.findOneOrFail(Site, { name: 'Home' })).id;
      const user = await createUser(
        em,
        tenantId,
        siteId,
        {
          userid: values.userid,
          password,
          firstName: values['first-name'] ?? '',
          lastName: values['last-name'] ?? '',
          emailaddress: values.email ?? '',
        },
      );
      if (values.administrator) {
        await em.getConnection().execute(
          `insert into group_member (group_id, user_id, tenant_id)
             select id, ?, tenant_id from user_group where tenant_id = ? and name_key(name) = name_key(?) on conflict do nothing`,
          [user.id, tenantId, ADMIN_GROUP],
        );
      }
      print(values.json!, { id: user.id, userid: user.userId, siteId: user.siteId, administrator: !!values.administrator });
    } else {
      const { em, tenantId } = await tenantEm(db, values.customer!, values.database!);
      // A userid in any case, as every other command and the login take it.
      const actor = values.user
        ? (
            await em.getConnection().execute<{ id: string }[]>('select id from app_user where tenant_id = ? and name_key(user_id) = name_key(?)', [tenantId, values.user])
          )[0]
        : (
            await em.getConnection().execute<{ user_id: string }[]>(
              `select m.user_id from group_member m join user_group g on g.id = m.group_id
                where m.tenant_id = ? and name_key(g.name) = name_key(?) order by m.created_at limit 1`,
              [tenantId, ADMIN_GROUP],
            )
          ).map((r) => ({ id: r.user_id }))[0];
      if (!actor) throw new UsageError(values.user ? `no user '${values.user}'` : 'the tenant has no administrator');
      const { client, secret } = await createApiClient(em, tenantId, actor.id, values.name ?? 'cli');
      await em.flush();
      print(values.json!, { clientId: client.id, clientSecret: secret });
    }
  } finally {
    await db.close();
  }
}

run(process.argv.slice(2)).catch((e) => {
  if (e instanceof PasswordError) {
    process.stderr.write(`quire: ${e.message}\n`);
    process.exit(2);
  }
  // parseArgs' refusals: an unknown option, or one given without its value.
  if (e instanceof UsageError || ['ERR_PARSE_ARGS_UNKNOWN_OPTION', 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'].includes((e as { code?: string }).code ?? '')) {
    process.stderr.write(`quire: ${e.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  if (e instanceof AppError) {
    process.stderr.write(`quire: ${e.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`quire: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
