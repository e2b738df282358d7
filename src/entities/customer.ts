import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { nowOnInsert } from '../db/clock.js';

/** A customer (organisation). Its databases are the tenants. */
export const Customer = defineEntity({
  name: 'Customer',
  tableName: 'customer',
  properties: (p) => ({
    id: p.uuid().primary(),
    alias: p.string(),
    name: p.string(),
    createdAt: nowOnInsert(),
  }),
});
export type Customer = InferEntity<typeof Customer>;

/** One database of a customer: the unit of tenancy (tenant_id everywhere is its id). */
export const CustomerDatabase = defineEntity({
  name: 'CustomerDatabase',
  tableName: 'customer_database',
  properties: (p) => ({
    id: p.uuid().primary(),
    customerId: p.uuid(),
    alias: p.string(),
    name: p.string(),
    createdAt: nowOnInsert(),
  }),
});
export type CustomerDatabase = InferEntity<typeof CustomerDatabase>;
