/**
 * Every tenant-owned entity carries tenant_id and this default filter. A fork without the
 * `tenant` filter parameter throws instead of reading across tenants (fails closed).
 * The filter covers reads; writes of managed entities (flush) ignore filters, so each such entity
 * declares tenantId as the first column of its primary key: the unit of work's UPDATE and DELETE
 * then say `where tenant_id = ? and id = ?`, the database's key (tenant_id, id). An entity made
 * without a tenantId gets its entity manager's tenant when it is flushed (`creatingTenant`).
 */
import { p, type EntityManager } from '@mikro-orm/core';

export const TENANT_FILTER = 'tenant';

export const tenantFilter = {
  [TENANT_FILTER]: {
    name: TENANT_FILTER,
    cond: (args: { id: string }) => ({ tenantId: args.id }),
    default: true,
    args: true,
  },
};

/** The tenant of the entity manager that flushes a new entity (its `tenant` filter parameter). */
export function creatingTenant(_: unknown, em: EntityManager): string {
  const params = em.getFilterParams<{ id?: string }>(TENANT_FILTER);
  if (!params?.id) throw new Error('A tenant-owned entity was created by an entity manager that has no tenant.');
  return params.id;
}

/** The key of a record that is its tenant's alone: (tenant_id, id), tenant_id given on flush. */
export const tenantKey = () => ({
  tenantId: p.uuid().hidden().primary().onCreate(creatingTenant),
  id: p.uuid().primary(),
});
