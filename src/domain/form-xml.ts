/**
 * The form designer's XML (a `FormEntity` document) to field definitions. Refuses what could
 * make a parser expand entities (a DOCTYPE and its entity declarations: XXE, billion laughs) and
 * malformed XML with a 400 that says why, before parsing.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { SaxesParser } from 'saxes';
import { AppError, badRequest, namedList } from '../errors.js';
import { isGuid, newId } from '../ids.js';
import { checkKey, DESIGNER_TYPE_ALIASES, FIELD_TYPES, LAYOUT_TYPES, MAX_FIELDS } from './form-fields.js';
import { escaped, refusedNameChar } from './validate.js';

export interface FieldSpec {
  fieldId: string;
  key: string;
  label: string;
  fieldType: number;
  required: boolean;
  options: string[];
  deleted: boolean;
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
const NO_DOCTYPE = 'The template XML may not contain a DOCTYPE or entity declarations.';

/**
 * The import's `input` key that holds the XML: every refusal here is of its value (AppError.field),
 * its message naming the element at fault where one is.
 */
const XML_KEY = 'fileUpload';
/** A 400 refusing the XML. */
const badXml = (msg: string) => badRequest(msg, { field: XML_KEY });

/**
 * The parser's entity decoder: XML's five named entities and every character reference decoded as
 * written, so that the name checks see `&#1;` as U+0001 and refuse it (the library's own decoder
 * dropped control characters and surrogates silently and left other references undecoded).
 * No declared entity is ever expanded: DOCTYPEs are refused before parsing, and here too (the
 * parser hands this decoder the entities of any DOCTYPE it meets, one after the root included).
 */
const entityDecoder = {
  decode: (text: string) =>
    text.replace(/&(#x[0-9a-f]+|#[0-9]+|lt|gt|amp|quot|apos);/gi, (ref: string, name: string) => {
      if (name[0] !== '#') return Object.hasOwn(NAMED, name) ? NAMED[name] : ref;
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      // fromCharCode keeps a surrogate reference a lone surrogate, which the checks refuse.
      return code > 0x10ffff ? ref : code > 0xffff ? String.fromCodePoint(code) : String.fromCharCode(code);
    }),
  addInputEntities: () => {
    throw badXml(NO_DOCTYPE);
  },
  setExternalEntities: () => {
    throw badXml(NO_DOCTYPE);
  },
  reset: () => {},
  setXmlVersion: () => {},
};

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  entityDecoder,
  isArray: (name, jpath) => name === 'FormPage' || name === 'BaseField' || (name === 'string' && String(jpath).endsWith('.ItemList.string')),
});

/** A designer `FieldType` name's type code; not `constructor` or other inherited keys. */
function typeCode(type: string): number | undefined {
  const name = type.toLowerCase();
  if (Object.hasOwn(FIELD_TYPES, name)) return FIELD_TYPES[name];
  return Object.hasOwn(DESIGNER_TYPE_ALIASES, name) ? DESIGNER_TYPE_ALIASES[name] : undefined;
}

const MAX_OPTIONS = 1000;

/** A drop-down list's items, as the designer writes them: `<ItemList><string>...</string></ItemList>`. */
function optionsOf(f: Node, key: string): string[] {
  const items = ((f.ItemList as Node | undefined)?.string ?? []) as unknown[];
  if (items.length > MAX_OPTIONS) throw badXml(`The field '${key}' has more than ${MAX_OPTIONS} items.`);
  return items.map((item, i) => {
    const option = typeof item === 'string' ? item : '';
    if (option.length > 400) throw badXml(`Item ${i + 1} of the field '${key}' is longer than 400 characters.`);
    const refused = refusedNameChar(option);
    if (refused) throw badXml(`Item ${i + 1} of the field '${key}' ('${escaped(option).slice(0, 128)}') holds the character ${refused} (a control character or a lone surrogate), which an item may not hold.`);
    return option;
  });
}

type Node = Record<string, unknown>;

/** Thrown at the root element's start: the prolog, where a DOCTYPE can be, is over. */
const ROOT = Symbol('root element');

/**
 * A 400 for a DOCTYPE where XML has one: in the prolog, after any byte order mark, XML declaration,
 * comments and processing instructions, read by a conformant parser (saxes) up to the root
 * element. `<!DOCTYPE` in a CDATA section, a comment, a processing instruction or (escaped) text is
 * no declaration and is kept. A prolog that is not well-formed is refused too, as a parser reading
 * it another way might find a DOCTYPE in it: fast-xml-parser's own reading ends a processing
 * instruction at a `?>` outside quotes only, and so passed over the DOCTYPE in
 * `<?x a="?><!DOCTYPE ...` that every conformant parser sees.
 */
function refuseDoctype(xml: string): void {
  const prolog = new SaxesParser();
  let doctype = false;
  prolog.on('doctype', () => {
    doctype = true;
  });
  prolog.on('opentagstart', () => {
    throw ROOT;
  });
  try {
    prolog.write(xml).close();
  } catch (err) {
    if (doctype) throw badXml(NO_DOCTYPE);
    if (err !== ROOT) throw badXml(`The template XML is malformed: ${(err as Error).message.replace(/^\d+:\d+: /, '').replace(/\.$/, '')} (line ${prolog.line}, column ${prolog.column}).`);
  }
  if (doctype) throw badXml(NO_DOCTYPE);
}

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

/**
 * `node[name]`, an element the designer writes at most once there. Written twice, the parser reads
 * it as a list, which the reader took for absent: a second `<FieldList>` or `<FormPages>` dropped
 * every field with a 200, a second `<ItemList>` the options, a second `<Required>` the flag.
 */
function once(node: Node, name: string, where: string): unknown {
  const v = node[name];
  if (Array.isArray(v)) throw badXml(`The template XML has ${v.length} <${name}> elements in ${where}, where the designer writes one: merge them into one.`);
  return v;
}

/** What the reader takes of a field, each at most once. */
const FIELD_PARTS = ['FieldType', 'Name', 'ID', 'Required', 'ValidationType', 'IsRetired', 'ItemList'] as const;

/** The validator's words for a document that ends with elements open (`Invalid '["a","b"]' found.`), as a person would say it. */
function unclosed(msg: string): string | undefined {
  const list = /^Invalid '(\[[\s\S]*\])' found\.?$/.exec(msg)?.[1];
  if (!list) return undefined;
  const names = (JSON.parse(list) as string[]).map((n) => `<${String(n).slice(0, 64)}>`);
  return `the document ends with ${names.length === 1 ? 'the element' : 'the elements'} ${namedList(names, (n) => n)} still open (never closed)`;
}

export function designerFields(xml: string, maxBytes: number): FieldSpec[] {
  if (Buffer.byteLength(xml) > maxBytes) {
    const msg = `The template XML is larger than the limit of ${maxBytes} bytes (FORM_IMPORT_MAX_BYTES).`;
    throw new AppError('PAYLOAD_TOO_LARGE', msg, msg, {}, {}, XML_KEY);
  }
  refuseDoctype(xml);
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw badXml(`The template XML is malformed: ${unclosed(valid.err.msg) ?? `${valid.err.msg.replace(/\.$/, '')} (line ${valid.err.line}, column ${valid.err.col})`}.`);
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (err) {
    if (err instanceof AppError) throw err;
    // The parser's own limits (nesting deeper than 100 elements).
    throw badXml(`The template XML could not be read: ${(err as Error).message}.`);
  }
  // `<FormEntity/>` or `<FormEntity></FormEntity>` reads as '': a FormEntity with nothing in it.
  const entity = once(doc, 'FormEntity', 'the document');
  const root = (entity === '' ? {} : entity) as Node | undefined;
  if (!root || typeof root !== 'object') throw badXml('The template XML must be a FormEntity document (the form designer\'s export).');

  const formPages = once(root, 'FormPages', '<FormEntity>');
  const pages = ((formPages && typeof formPages === 'object' ? (formPages as Node).FormPage : undefined) ?? []) as Node[];
  const out: FieldSpec[] = [];
  const keys = new Set<string>();
  const ids = new Set<string>();
  for (const [p, page] of pages.entries()) {
    const list = page && typeof page === 'object' ? once(page, 'FieldList', `page ${p + 1}`) : undefined;
    for (const [i, f] of (((list as Node | undefined)?.BaseField ?? []) as Node[]).entries()) {
      if (f && typeof f === 'object') for (const part of FIELD_PARTS) once(f, part, `field ${i + 1} of page ${p + 1}${typeof f.Name === 'string' ? ` ('${text(f.Name).slice(0, 64)}')` : ''}`);
      const type = text(f.FieldType);
      const code = typeCode(type);
      if (code === undefined) {
        if (LAYOUT_TYPES.has(type.toLowerCase())) continue;
        throw badXml(`The field '${text(f.Name)}' has a field type this service does not know: '${type.slice(0, 64)}'.`);
      }
      const key = checkKey(text(f.Name), undefined, XML_KEY);
      if (keys.has(key.toLowerCase())) throw badXml(`The template XML names the field '${key}' twice.`);
      const rawId = text(f.ID);
      if (rawId !== '' && !isGuid(rawId)) throw badXml(`The field '${key}' has an ID that is not a GUID: '${text(f.ID).slice(0, 64)}'.`);
      const fieldId = rawId === '' ? newId() : rawId.toLowerCase();
      if (ids.has(fieldId)) throw badXml(`The template XML gives the ID '${fieldId}' to two fields.`);
      keys.add(key.toLowerCase());
      ids.add(fieldId);
      // Designers mark a required field with a validation of that type; `Required` is ours.
      const required = text(f.Required) === 'true' || text(f.ValidationType) === 'RequiredValidation';
      const options = code === FIELD_TYPES.dropdownlist ? optionsOf(f, key) : [];
      out.push({ fieldId, key, label: key, fieldType: code, required, options, deleted: text(f.IsRetired) === 'true' });
      if (out.length > MAX_FIELDS) throw badXml(`A template may hold at most ${MAX_FIELDS} fields.`);
    }
  }
  return out;
}

/**
 * `write` of the fields `designerFields` gave. Its check of a name sent twice lower-cases names as
 * JavaScript does, the unique index as PostgreSQL's lower() does, which finds some pairs alike that
 * the check did not ('ΑΣ' and 'ασ': JavaScript writes the final sigma 'ς'): the XML's fault too.
 */
export async function writingDesignerFields<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if ((err as { constraint?: unknown } | null)?.constraint === 'form_template_field_key_uq') {
      throw badXml('The template XML names two fields alike (the same name without regard to case).');
    }
    throw err;
  }
}
