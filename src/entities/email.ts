import { defineEntity, type InferEntity } from '@mikro-orm/core';
import { tenantFilter, tenantKey } from '../db/tenant-filter.js';
import { nowOnInsert } from '../db/clock.js';

/** Where a message stands in the queue (src/jobs/email-sender.ts). */
export const EMAIL_STATUS = { queued: 0, sent: 1, failed: 2 } as const;

/** An outgoing message (migrations/Migration20261125210000_emails.ts): addresses as comma lists. */
export const EmailMessage = defineEntity({
  name: 'EmailMessage',
  tableName: 'email_message',
  filters: tenantFilter,
  properties: (p) => ({
    ...tenantKey(),
    recipients: p.text(),
    ccRecipients: p.text().default(''),
    bccRecipients: p.text().default(''),
    subject: p.text().default(''),
    body: p.text().default(''),
    status: p.smallint().default(EMAIL_STATUS.queued),
    attempts: p.integer().default(0),
    nextAttemptAt: nowOnInsert(),
    leaseUntil: p.datetime().nullable(),
    lastError: p.text().default(''),
    smtpResponse: p.text().default(''),
    sentAt: p.datetime().nullable(),
    /** When it was sent or failed for good: the purge counts EMAIL_KEEP_DAYS from it. */
    finishedAt: p.datetime().nullable(),
    createdAt: nowOnInsert(),
    createdById: p.uuid().nullable(),
  }),
});
export type EmailMessage = InferEntity<typeof EmailMessage>;
