/** Form field definitions: the type codes and the rules every revision's fields obey. */
import { badRequest, shownValue } from '../errors.js';
import { escaped, refusedNameChar } from './validate.js';

/**
 * Field type codes (also `formFieldType` of the designer's field list), by the designer's
 * `FieldType` name, matched case-insensitively.
 */
export const FIELD_TYPES: Record<string, number> = {
  textbox: 1,
  textarea: 2,
  dropdownlist: 3,
  checkbox: 4,
  calendarfield: 5,
  cellfield: 6,
};

/**
 * Other `FieldType` names of data fields in real designer exports, and the type each is kept as:
 * a multi-line text box is a text area, a slider and a sum hold numbers, a user stamp the
 * stamping user's name.
 */
export const DESIGNER_TYPE_ALIASES: Record<string, number> = {
  multilinetextbox: FIELD_TYPES.textarea,
  calendar: FIELD_TYPES.calendarfield,
  fieldslider: FIELD_TYPES.cellfield,
  sumfield: FIELD_TYPES.cellfield,
  useridstamp: FIELD_TYPES.textbox,
};

/**
 * Designer elements that hold no value of the instance's own: layout, buttons, images, upload
 * buttons (attachments are documents), the form id stamp (the instance name is a base field),
 * grids and question controls filled by queries, repeating rows and their columns (rows are
 * forms of their own), wizard steps. Skipped on import.
 */
export const LAYOUT_TYPES = new Set([
  'container', 'label', 'image', 'button', 'line', 'rectangle', 'hyperlink',
  'imageformcontrol', 'formbutton', 'uploadbutton', 'formidstamp', 'fielddatagrid', 'questioncontrol',
  'repeatingrowcontrol', 'repeatingrowcontrolcolumn', 'wizardstep', 'barcodeimage',
]);

/** The keys of every instance's base fields; no form field may take one. */
export const BASE_KEYS = ['revisionid', 'instancename', 'modifydate', 'modifyby', 'modifybyid', 'createdate', 'createby', 'createbyid'];

export const MAX_FIELDS = 2000;
const MAX_KEY = 100;

/**
 * A field key as designers name fields: not blank, one line without control characters, not a
 * base key, not the deleted-field prefix `__`. A field's edit passes its key as `stored`: resent
 * unchanged, it is kept as other names are (`oneLine`), a key from before DEL and the C1 controls
 * were refused too. `field`: the input the name came in (AppError), none for a name inside a template's XML.
 */
export function checkKey(name: string, stored?: string, field?: string): string {
  const key = name.trim();
  const at = { field };
  if (key === '') throw badRequest('A form field needs a name.', at);
  const refused = key === stored ? undefined : refusedNameChar(key);
  if (refused) throw badRequest(`The form field name '${escaped(key).slice(0, 128)}' holds the character ${refused} (a control character or a lone surrogate), which a name may not hold.`, at);
  if (key.length > MAX_KEY) throw badRequest(`The form field name '${key.slice(0, 64)}...' is longer than ${MAX_KEY} characters.`, at);
  if (key.startsWith('__')) throw badRequest(`The form field name '${key}' may not start with '__' (it marks deleted fields).`, at);
  if (BASE_KEYS.includes(key.toLowerCase())) throw badRequest(`The form field name '${key}' is taken by a base field.`, at);
  return key;
}

export function fieldTypeCode(v: unknown): number {
  if (v === undefined || v === null) return FIELD_TYPES.textbox;
  const n = Number(v);
  if (!Object.values(FIELD_TYPES).includes(n)) throw badRequest(`The field type must be one of ${Object.values(FIELD_TYPES).join(', ')}, got ${shownValue(v, 32)}.`, { field: 'fieldType' });
  return n;
}
