/**
 * The events a user may subscribe to alerts for (docs/decisions.md, "Alerts"), on a folder (for
 * the documents in it) or on one document. The ids are fixed: clients keep them in their
 * settings, as the Node client's tests take theirs from the environment. An event the Node
 * clients name in `constants.alertEventIds` has the id they ship (lower case), so their scripts
 * subscribe unchanged; the others have ids of their own.
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
    // folderDocumentAdded ("NewCategoryDoc"): the folder's own documents, not its subfolders'.
    id: '3702cfbf-555c-4032-bfb2-e25829788bac',
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
    // documentCheckedOut ("CheckOut").
    id: '4bba55c1-7af6-48ff-bfbe-ec7a58eb7f01',
    name: 'Document checked out',
    description: 'Someone checks the document out.',
    appliesTo: ['folder', 'document'],
  },
  documentCheckedIn: {
    // documentCheckedIn ("CheckIn").
    id: 'd47804ab-aee9-4002-bab5-9f1ac0366076',
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
