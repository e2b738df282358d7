/**
 * The events a user may subscribe to alerts for (docs/decisions.md, "Alerts"), on a folder (for
 * the documents in it) or on one document. The ids are fixed: clients keep them in their
 * settings, as the Node client's tests take theirs from the environment.
 */
export interface AlertEvent {
  id: string;
  name: string;
  description: string;
  /** What a subscription may name: a folder, a document, or either. */
  appliesTo: readonly ('folder' | 'document')[];
}

export const ALERT_EVENTS = {
  documentAdded: {
    id: '16206eb1-27cc-4660-97be-c1bd131e2bc4',
    name: 'Document added',
    description: 'A document is created in the folder, copied into it or moved into it.',
    appliesTo: ['folder'],
  },
  documentRevised: {
    id: '82798fa6-7f46-4ce3-998f-8025aba4bcb1',
    name: 'Document revised',
    description: 'A file is uploaded to the document: a new revision, or the first file of one.',
    appliesTo: ['folder', 'document'],
  },
  documentCheckedOut: {
    id: '02d962a2-1548-4f66-be00-c345d4121acf',
    name: 'Document checked out',
    description: 'Someone checks the document out.',
    appliesTo: ['folder', 'document'],
  },
  documentCheckedIn: {
    id: 'e5bd2c16-23a7-470f-bf85-93dafbe19f16',
    name: 'Document checked in',
    description: 'Someone checks the document in.',
    appliesTo: ['folder', 'document'],
  },
  documentDeleted: {
    id: '1adeae6d-a784-4cce-a83f-37230617dc4f',
    name: 'Document deleted',
    description: 'The document is deleted.',
    appliesTo: ['folder', 'document'],
  },
} as const satisfies Record<string, AlertEvent>;

export type AlertEventKey = keyof typeof ALERT_EVENTS;

export const alertEvents: readonly AlertEvent[] = Object.values(ALERT_EVENTS);

/** The event an id names (any case), or undefined. */
export const alertEventById = (id: string): AlertEvent | undefined => alertEvents.find((e) => e.id === id.toLowerCase());
