/**
 * Who may call what, in one place. Root fields declare their rule in the schema (`@allow`, see
 * schema/base.graphql); src/schema.ts wraps exactly those fields with `enforce`, so REST and
 * /graphql are checked alike. Row by row checks are in src/permissions/row-checks.ts.
 */
import type { AppContext } from '../context.js';
import { forbidden } from '../errors.js';
import { isCaller, policies } from './policies.js';

export type Audience = 'TENANT' | 'ADMIN' | 'SELF_OR_ADMIN' | 'POLICY';

export interface AllowRule {
  to: Audience;
  /** SELF_OR_ADMIN: the argument naming the user. */
  arg?: string;
  /** POLICY: its name in src/permissions/policies.ts. */
  policy?: string;
}

const ADMIN_ONLY = 'Only a tenant administrator may do this.';

/** Throws a 403 unless the caller may call a root field with these arguments. */
export async function enforce(rule: AllowRule, ctx: AppContext, args: Record<string, unknown>): Promise<void> {
  switch (rule.to) {
    case 'TENANT':
      return;
    case 'ADMIN':
      if (!(await ctx.isAdmin())) throw forbidden(ADMIN_ONLY);
      return;
    case 'SELF_OR_ADMIN':
      if (isCaller(ctx, args[rule.arg!])) return;
      if (!(await ctx.isAdmin())) throw forbidden('You may act only on your own account; this needs a tenant administrator.');
      return;
    case 'POLICY':
      return policies[rule.policy!](ctx, args, rule.arg ?? '');
  }
}
