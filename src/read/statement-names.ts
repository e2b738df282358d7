/**
 * Names for the read pool's statements, so PostgreSQL parses and plans each once per connection
 * and then only binds and runs it. A by-id read's plan cost the server more than running it
 * (0.16 against 0.05 ms, the session check's join included: bench/README.md). The read path's
 * texts come from the resource definitions, so few recur; but `q` and `fields` make texts of
 * their callers' choosing, and every connection keeps each statement it has prepared until it
 * closes (about 50 KB of the server's memory each). So a text is named only when it comes a
 * second time, and at most `max` texts (DB_NAMED_STATEMENTS) are named in a process: later ones
 * run unnamed, as every statement did before.
 */
export class StatementNames {
  private readonly named = new Map<string, string>();
  /** Texts seen once, waiting for a second time; forgotten all at once when full. */
  private seenOnce = new Set<string>();

  constructor(private readonly max: number) {}

  /** The name to prepare `text` under, or undefined to run it unnamed. */
  nameFor(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= this.max) return name;
    if (!this.seenOnce.delete(text)) {
      if (this.seenOnce.size >= MAX_SEEN_ONCE) this.seenOnce = new Set();
      this.seenOnce.add(text);
      return undefined;
    }
    const fresh = `quire_read_${this.named.size + 1}`;
    this.named.set(text, fresh);
    return fresh;
  }
}

const MAX_SEEN_ONCE = 4096;
