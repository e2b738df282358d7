/**
 * Whether a parsed JSON value nests deeper than `max` levels, found without recursion: what
 * JSON.stringify and other recursive code would take from it is a stack overflow (a 500), at
 * some thousands of levels, which JSON.parse reads without complaint.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Deeper than any dictionary, script input or form value a person means. */
export const MAX_JSON_DEPTH = 64;
