/**
 * Every tenant-owned entity carries tenant_id and this default filter. A fork without the
 * `tenant` filter parameter throws instead of reading across tenants (fails closed).
 */
export const TENANT_FILTER = 'tenant';

export const tenantFilter = {
  [TENANT_FILTER]: {
    name: TENANT_FILTER,
    cond: (args: { id: string }) => ({ tenantId: args.id }),
    default: true,
    args: true,
  },
};
