/** Named access policies for root fields (`@allow(to: POLICY, policy: "...")`), each a 403 when refused. */
import type { AppContext } from '../context.js';
import { forbidden } from '../errors.js';
import { ZERO_GUID } from '../ids.js';
import { resource } from '../read/registry.js';
import { assertMayChange } from './row-checks.js';

/** Whether a user id argument names the caller (the all-zero GUID does). */
export const isCaller = (ctx: AppContext, id: unknown): boolean =>
  typeof id === 'string' && (id === ZERO_GUID || id.toLowerCase() === ctx.caller.userId);

/** What an ordinary user may send when changing their own account through `PUT users/{id}`. */
const SELF_EDITABLE = new Set(['newPassword', 'oldPassword']);

export const policies: Record<string, (ctx: AppContext, args: Record<string, unknown>) => Promise<void>> = {
  /** Administrators change any user; users change only their own password (as the Node client does). */
  async ownPasswordOrAdmin(ctx, args) {
    if (await ctx.isAdmin()) return;
    if (!isCaller(ctx, args.id)) throw forbidden('You may act only on your own account; this needs a tenant administrator.');
    const denied = Object.keys((args.input as object | undefined) ?? {}).filter((k) => !SELF_EDITABLE.has(k));
    if (denied.length) throw forbidden(`Only an administrator may change ${denied.join(', ')}.`);
  },
  /** A persisted data dictionary: its creator or an administrator (404 when the caller cannot see it). */
  persistedDataOwnerOrAdmin: (ctx, args) => assertMayChange(ctx, resource('PersistedData'), args.id as string),
};
