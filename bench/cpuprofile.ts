/**
 * Summarises a V8 .cpuprofile (from BENCH_PROFILE=1): self time by function, self time by
 * package / project file, and total (inclusive) time of project functions.
 *   npx tsx bench/cpuprofile.ts bench/results/profiles/app-*.cpuprofile [top=25]
 */
import fs from 'node:fs';
import path from 'node:path';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);
if (!file) {
  process.stderr.write('usage: tsx bench/cpuprofile.ts <file.cpuprofile> [top]\n');
  process.exit(2);
}
const prof = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

// Self time per node from samples and time deltas (microseconds).
const self = new Map<number, number>();
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
function where(url: string): string {
  if (!url) return '(native/vm)';
  const p = url.replace(/^file:\/\//, '');
  const nm = p.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = p.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (p.startsWith('node:')) return p;
  return path.relative(root, p);
}
const label = (n: Node) => {
  const f = n.callFrame;
  return `${f.functionName || '(anonymous)'}  ${where(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
};
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;

function printTop(title: string, m: Map<string, number>) {
  process.stdout.write(`\n${title}\n`);
  for (const [k, v] of [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`  ${pct(v)}  ${(v / 1000).toFixed(0).padStart(7)} ms  ${k}\n`);
  }
}

const selfByFn = new Map<string, number>();
const selfByWhere = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  selfByFn.set(label(n), (selfByFn.get(label(n)) ?? 0) + us);
  const w = where(n.callFrame.url) || n.callFrame.functionName;
  const key = w === '(native/vm)' ? n.callFrame.functionName || w : w;
  selfByWhere.set(key, (selfByWhere.get(key) ?? 0) + us);
}

// Inclusive time of project (src/) functions: each sample counted once per distinct frame on its stack.
const inclusive = new Map<string, number>();
prof.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    const w = where(n.callFrame.url);
    if (!w.startsWith('src/') && !w.startsWith('sofa-api') && !w.startsWith('graphql') && !w.startsWith('@mikro-orm') && !w.startsWith('jose') && !w.startsWith('dataloader') && !w.startsWith('@whatwg-node')) continue;
    const l = label(n);
    if (seen.has(l)) continue;
    seen.add(l);
    inclusive.set(l, (inclusive.get(l) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
});

process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
printTop('Self time by package / file', selfByWhere);
printTop('Self time by function', selfByFn);
printTop('Inclusive time (project and framework functions)', inclusive);
