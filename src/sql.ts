/**
 * SQL fragments that keep their text and their values apart. Placeholders are numbered only when
 * a statement is finished (`statement`), by counting values, so nothing ever scans SQL text for
 * `?`: PostgreSQL's JSONB `?` operator stays an operator, and a value can never become SQL.
 */
export class Sql {
  /** The text around the values: `strings.length === values.length + 1`. */
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}
}

/** A fragment from a template: nested `Sql` is spliced in, any other value becomes a parameter. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const out = [strings[0]];
  const vals: unknown[] = [];
  values.forEach((v, i) => {
    if (v instanceof Sql) {
      out[out.length - 1] += v.strings[0];
      v.values.forEach((inner, j) => {
        vals.push(inner);
        out.push(v.strings[j + 1]);
      });
    } else {
      vals.push(v);
      out.push('');
    }
    out[out.length - 1] += strings[i + 1];
  });
  return new Sql(out, vals);
}

/** Trusted SQL text (identifiers and keywords from our own code, never client input). */
export const raw = (text: string): Sql => new Sql([text], []);

export const EMPTY = raw('');

export function join(parts: readonly Sql[], separator: string): Sql {
  if (parts.length === 0) return EMPTY;
  const strings = [parts[0].strings[0]];
  const values: unknown[] = [];
  parts.forEach((p, i) => {
    if (i > 0) strings[strings.length - 1] += separator + p.strings[0];
    p.values.forEach((v, j) => {
      values.push(v);
      strings.push(p.strings[j + 1]);
    });
  });
  return new Sql(strings, values);
}

/** PostgreSQL's limit of parameters in one statement. */
export const MAX_PARAMETERS = 65_535;

/**
 * The finished statement for the driver: `$1, $2 ...` in value order. More parameters than
 * PostgreSQL takes are refused here, as our error (a 500 that names it): sent, they broke the
 * protocol message, and PostgreSQL's refusal read as the database being away (a 503).
 */
export function statement(s: Sql): { text: string; values: unknown[] } {
  if (s.values.length > MAX_PARAMETERS) {
    throw new Error(`A statement of ${s.values.length} parameters: PostgreSQL takes at most ${MAX_PARAMETERS} in one (src/db/tenant-writes.ts splits rows into statements that fit).`);
  }
  let text = s.strings[0];
  for (let i = 1; i < s.strings.length; i++) text += `$${i}${s.strings[i]}`;
  return { text, values: s.values as unknown[] };
}
