import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { creatingTenant, tenantFilter } from '../db/tenant-filter.js';
import { nowOnInsert } from '../db/clock.js';

/** An API client: the client_id/client_secret pair a tenant issues. */
export const ApiClient = defineEntity({
  name: 'ApiClient',
  tableName: 'api_client',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    name: p.string(),
    secretHash: p.string().hidden(),
    /** The user a client_credentials grant acts as. */
    userId: p.uuid(),
    createdAt: nowOnInsert(),
    revokedAt: p.datetime().nullable(),
  }),
});
export type ApiClient = InferEntity<typeof ApiClient>;

/** Opaque refresh tokens, stored hashed; rotated on use, reuse revokes the family. */
export const RefreshToken = defineEntity({
  name: 'RefreshToken',
  tableName: 'refresh_token',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    familyId: p.uuid(),
    tokenHash: p.string(),
    userId: p.uuid(),
    clientId: p.uuid(),
    /** The user's session epoch at login: a refresh under another one is refused. */
    sessionEpoch: p.integer(),
    /** Fixed at login for the whole family: rotation never extends a session. */
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: nowOnInsert(),
  }),
});
export type RefreshToken = InferEntity<typeof RefreshToken>;

/** Single-use login tokens for the web UI and impersonation (GET users/{id}/webToken), stored hashed. */
export const WebToken = defineEntity({
  name: 'WebToken',
  tableName: 'web_token',
  filters: tenantFilter,
  properties: (p) => ({
    tenantId: p.uuid().primary().onCreate(creatingTenant),
    id: p.uuid().primary(),
    tokenHash: p.string(),
    userId: p.uuid(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    createdAt: nowOnInsert(),
  }),
});
export type WebToken = InferEntity<typeof WebToken>;

/** JWT signing keys (not tenant-owned: one issuer for the service). The private key is sealed (src/auth/kek.ts). */
export const SigningKey = defineEntity({
  name: 'SigningKey',
  tableName: 'signing_key',
  properties: (p) => ({
    kid: p.string().primary(),
    alg: p.string(),
    /** Plaintext, only in rows written before keys were sealed: sealed and cleared at start-up. */
    privateJwk: p.json<Record<string, unknown>>().hidden().nullable(),
    privateKeySealed: p.text().hidden().nullable(),
    publicJwk: p.json<Record<string, unknown>>(),
    createdAt: nowOnInsert(),
    /** Replaced by a newer key: signs nothing more, verifies until its tokens have expired. */
    retiredAt: p.datetime().nullable(),
  }),
});
export type SigningKey = InferEntity<typeof SigningKey>;
