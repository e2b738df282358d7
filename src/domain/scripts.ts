/**
 * Scripts (docs/decisions.md, "Scripts"): the sources a tenant's administrators keep, and runs on
 * the outside process. A run posts `{script, baseUrl, fields}` to `<SCRIPT_SERVER_URL>/scripts?id=<script id>`,
 * as the script server (nodeJs-rest-client-library's app.js) reads it: the script's text, the
 * address it calls this service back at, and the caller's JSON as a JSON string. What the script
 * answers is the run's answer. Scheduled processes post to `/scheduledscripts` the same way.
 */
import type { AppContext } from '../context.js';
import { nameEquals } from '../db/lookup.js';
import { ScheduledProcess } from '../entities/scheduled-process.js';
import { Script } from '../entities/script.js';
import { AppError, badRequest, conflict, namedList, notFound } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../nesting.js';
import { readAtMost } from '../read-at-most.js';
import { editable } from './editable.js';
import { maxLength, nameText, optionalString, requireName, requireText, uniquely } from './validate.js';

type Input = Record<string, unknown>;

const LIMITS = { name: 256, description: 4000, source: 1_000_000 } as const;

function source(raw: string): string {
  if (raw.trim() === '') throw badRequest("The field 'source' must not be blank.", { field: 'source' });
  return maxLength(raw, LIMITS.source, 'source');
}

/** The script an id or a name (any case) names, or null. */
export function scriptNamed(ctx: AppContext, idOrName: string): Promise<Script | null> {
  const key = idOrName.trim();
  return isGuid(key) ? ctx.em().findOne(Script, { id: key.toLowerCase() }) : ctx.em().findOne(Script, nameEquals('name', key));
}

/** `lock` for a delete: of two at once, the second finds it gone (404). */
const scriptById = (ctx: AppContext, id: string, lock = false): Promise<Script> => editable(ctx, Script, id, 'Script', lock);

/** A new script; returns its id. Two of one name at once: one is made, the other gets a 409. */
export async function createScript(ctx: AppContext, input: Input): Promise<string> {
  const name = requireName(input, LIMITS.name);
  const by = ctx.caller.userId;
  const script = ctx.em().create(Script, {
    id: newId(),
    name,
    description: maxLength(optionalString(input, 'description') ?? '', LIMITS.description, 'description'),
    // Missing: the usual 'mandatory field' refusal; sent blank: source's own.
    source: source(requireText(input, 'source')),
    createdById: by,
    modifiedById: by,
  } as Script);
  await uniquely(`A script named '${name}'`, () => ctx.em().flush());
  return script.id;
}

/** Changes what is sent. */
export async function updateScript(ctx: AppContext, id: string, input: Input): Promise<void> {
  const script = await scriptById(ctx, id);
  const name = optionalString(input, 'name');
  const description = optionalString(input, 'description');
  const text = optionalString(input, 'source');
  if (name === undefined && description === undefined && text === undefined) throw badRequest('Send at least one of: name, description, source.');
  if (name !== undefined) script.name = nameText(name, LIMITS.name, 'name', script.name);
  if (description !== undefined) script.description = maxLength(description, LIMITS.description, 'description');
  if (text !== undefined) script.source = source(text);
  script.modifiedById = ctx.caller.userId;
  await uniquely(`A script named '${script.name}'`, () => ctx.em().flush());
}

/** Deletes a script; one a scheduled process runs is a 409 naming the process (the foreign key would name none). */
export async function deleteScript(ctx: AppContext, id: string): Promise<void> {
  const script = await scriptById(ctx, id, true);
  const users = await ctx.em().find(ScheduledProcess, { scriptId: script.id }, { orderBy: { name: 'asc' }, fields: ['name'] });
  if (users.length > 0) {
    const many = users.length > 1;
    throw conflict(`Script '${script.name}' is run by the scheduled process${many ? 'es' : ''} ${namedList(users.map((p) => p.name))}: delete ${many ? 'them' : 'it'} or give ${many ? 'them' : 'it'} another script first.`);
  }
  ctx.em().remove(script);
  await ctx.em().flush();
}

export interface RunArgs {
  id?: string | null;
  name?: string | null;
  usId?: string | null;
  input?: unknown;
}

/** Runs a script on the outside process and answers what the script answered (any JSON). */
export async function runScript(ctx: AppContext, args: RunArgs): Promise<unknown> {
  const key = args.id ?? args.name?.trim();
  if (!key) throw badRequest("Name the script to run: send 'name' or 'id' (POST scripts?name=<name>).", { field: 'name' });
  const script = await scriptNamed(ctx, key);
  if (!script) throw notFound(args.id ? `Script '${args.id}' was not found.` : `No script is named '${key}'.`);
  // Both sent: they must agree, or the caller meant a script other than the one that would run.
  const name = args.name?.trim();
  if (args.id && name && script.name.toLowerCase() !== name.toLowerCase()) {
    throw badRequest(`The script '${args.id}' is named '${script.name}', not '${name.slice(0, 256)}': send 'id' or 'name', or both naming the same script.`, { field: 'name' });
  }

  return callScriptServer(ctx, 'scripts', script, {
    fields: JSON.stringify(args.input ?? []),
    ...(args.usId ? { usId: args.usId } : {}),
  });
}

/**
 * Posts a script to the outside process (`<SCRIPT_SERVER_URL>/<route>?id=<script id>`) with its
 * source, the address it calls this service back at and `extra`, and answers the JSON it answers.
 */
export async function callScriptServer(ctx: AppContext, route: 'scripts' | 'scheduledscripts', script: Pick<Script, 'id' | 'name' | 'source'>, extra: Record<string, unknown>): Promise<unknown> {
  const { scriptServerUrl, scriptTimeoutSeconds, maxBodyBytes } = ctx.services.config;
  if (!scriptServerUrl) throw new AppError('UNAVAILABLE', 'No outside process runs scripts here: SCRIPT_SERVER_URL is not set.');
  // Known once the HTTP server listens; an app served some other way has only PUBLIC_URL.
  const { ownUrl } = ctx.services;
  if (!ownUrl) throw new AppError('UNAVAILABLE', "This service's own address, where a script calls it back, is not known: set PUBLIC_URL.");
  const body = {
    script: script.source,
    // Where the script calls this service back, with its own credentials: this service's address,
    // never the request's Host, which would send them to a host the caller chose.
    baseUrl: ownUrl,
    ...extra,
  };
  // A user and password in SCRIPT_SERVER_URL go as HTTP basic authentication (fetch refuses them in a URL).
  const target = new URL(`${scriptServerUrl}/${route}?id=${script.id}`);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.username || target.password) {
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
    [target.username, target.password] = ['', ''];
  }
  // One deadline for the whole exchange, its answer's body included.
  const signal = AbortSignal.timeout(scriptTimeoutSeconds * 1000);
  const failed = (err: unknown, what: string) => {
    if (err instanceof AppError) return err;
    if ((err as Error).name === 'TimeoutError') {
      return new AppError('GATEWAY_TIMEOUT', `The script '${script.name}' ran longer than SCRIPT_TIMEOUT_SECONDS (${scriptTimeoutSeconds} s).`);
    }
    // The address is the operator's and may hold credentials: the cause is named, never the URL or a message that may quote it.
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
    return new AppError('BAD_GATEWAY', `${what} (${cause}).`);
  };
  let response: Response;
  try {
    // A redirect is not followed: the script would choose the address this service calls.
    response = await fetch(target, { method: 'POST', headers, body: JSON.stringify(body), signal, redirect: 'manual' });
  } catch (err) {
    throw failed(err, 'The outside process that runs scripts could not be reached or gave no answer');
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const redirect = response.status >= 300 && response.status < 400 ? ' (a redirect, which is not followed)' : '';
    throw new AppError('BAD_GATEWAY', `The outside process answered HTTP ${response.status}${redirect} for the script '${script.name}'.`);
  }
  let bytes: Buffer;
  try {
    bytes = await readAtMost(response.body, { maxBytes: maxBodyBytes, tooLarge: () => new AppError('BAD_GATEWAY', `The script '${script.name}' answered more than ${maxBodyBytes} bytes (MAX_BODY_BYTES).`) });
  } catch (err) {
    throw failed(err, `The outside process broke off its answer for the script '${script.name}'`);
  }
  let text: string;
  try {
    // JSON is UTF-8 (RFC 8259); Buffer's decoder turned bytes that are not into U+FFFD without a word.
    // A leading byte order mark, which the RFC lets a reader ignore, is dropped (JSON.parse refused it).
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AppError('BAD_GATEWAY', `The script '${script.name}' answered bytes that are not UTF-8 (JSON's encoding).`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new AppError('BAD_GATEWAY', `The script '${script.name}' answered something that is not JSON.`);
  }
  // Written back out recursively (a stack overflow past some thousands of levels).
  if (nestsDeeperThan(answer, MAX_JSON_DEPTH)) throw new AppError('BAD_GATEWAY', `The script '${script.name}' answered JSON nested more than ${MAX_JSON_DEPTH} levels deep.`);
  return answer;
}
