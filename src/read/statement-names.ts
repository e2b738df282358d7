/**
 * Names for the read path's statements, so PostgreSQL parses and plans each once per connection
 * and then only binds and runs it. A by-id read's plan cost the server more than running it
 * (0.16 against 0.05 ms, the session check's join included: bench/README.md). The read path's
 * texts come from the resource definitions, so few recur; but `q` and `fields` make texts of
 * their callers' choosing, and every connection keeps each statement it has prepared until it
 * closes. So a text is named only when it comes a second time, and at most MAX_NAMED texts are
 * named in a process: later ones run unnamed, as every statement did before.
 */
const MAX_NAMED = 256;
/** Texts seen once, waiting for a second time; forgotten all at once when full. */
const MAX_SEEN_ONCE = 4096;

const named = new Map<string, string>();
let seenOnce = new Set<string>();

/** The name to prepare `text` under, or undefined to run it unnamed. */
export function statementName(text: string): string | undefined {
  const name = named.get(text);
  if (name !== undefined || named.size >= MAX_NAMED) return name;
  if (!seenOnce.delete(text)) {
    if (seenOnce.size >= MAX_SEEN_ONCE) seenOnce = new Set();
    seenOnce.add(text);
    return undefined;
  }
  const fresh = `quire_read_${named.size + 1}`;
  named.set(text, fresh);
  return fresh;
}
