/**
 * Every tenant-owned entity carries tenant_id and this default filter. A fork without the
 * `tenant` filter parameter throws instead of reading across tenants (fails closed).
 * The filter covers reads; writes of managed entities (flush) ignore filters, so each such entity
 * declares tenantId as the first column of its primary key: the unit of work's UPDATE and DELETE
 * then say `where tenant_id = ? and id = ?`, the database's key (tenant_id, id).
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
