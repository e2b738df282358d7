/**
 * Roles: a tenant administrator is an enabled member of the tenant's Administrators group, asked of
 * the database on every request that needs it (`whoAmI` in src/auth/session.ts), so a promotion or
 * demotion counts at once.
 */
export const ADMIN_GROUP = 'Administrators';
