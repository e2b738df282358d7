/**
 * Finds the modules of a folder, so that adding a resource, an entity, a migration or a resolver
 * file needs no central list. Works on the TypeScript sources (tsx, jest) and on the compiled
 * JavaScript in dist/ (npm start) alike.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MODULE = /^(?!.*\.d\.ts$).*\.(ts|js)$/;

/** Every module in `dir` (not below it), by file name without extension, in name order. */
export async function modulesIn(dir: string): Promise<Map<string, Record<string, unknown>>> {
  const files = fs.readdirSync(dir).filter((f) => MODULE.test(f)).sort();
  const out = new Map<string, Record<string, unknown>>();
  for (const f of files) out.set(f.replace(/\.(ts|js)$/, ''), await import(pathToFileURL(path.join(dir, f)).href));
  return out;
}
