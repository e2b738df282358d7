/**
 * Every package the code imports is declared in package.json: the server's own (src/, bin/) among
 * `dependencies`, which an install for production keeps, the tests' and the benchmark's among
 * either. A package that only arrives as another's dependency (graphql-jit did, @jest/globals
 * did) can vanish or change version under the code with any update of the one that brings it.
 */
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

const ROOT = process.cwd();
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };

function filesUnder(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return filesUnder(rel);
    return /\.(ts|mts|js|mjs|cjs)$/.test(e.name) ? [rel] : [];
  });
}

/** A package name and an optional path in it (SQL text such as `from '\\.(x)'` is none). */
const PACKAGE = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(?:\/[\w.\/-]*)?$/;

/** The packages `file` imports: static and dynamic imports and requires of a bare name, by package (`@scope/name` or `name`). */
function packagesOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)'([^'.\/][^']*)'/gm)].map((m) => m[1]);
  return specifiers
    .filter((s) => PACKAGE.test(s) && !s.startsWith('node:') && !builtinModules.includes(s.split('/')[0]))
    .map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/'));
}

const undeclared = (dirs: string[], declared: Record<string, string>) =>
  dirs.flatMap(filesUnder).flatMap((file) => packagesOf(file).filter((p) => !Object.hasOwn(declared, p)).map((p) => `${file}: ${p}`));

test("the server's imports are its dependencies", () => {
  expect(undeclared(['src', 'bin'], pkg.dependencies)).toEqual([]);
});

test("the tests' and the benchmark's imports are declared", () => {
  expect(undeclared(['test', 'bench'], { ...pkg.dependencies, ...pkg.devDependencies })).toEqual([]);
});

test('the scan finds imports of every form', () => {
  // A check that finds nothing passes for any code: it must see these.
  expect(packagesOf('src/server.ts')).toEqual([]);
  expect(packagesOf('src/schema.ts')).toEqual(expect.arrayContaining(['graphql']));
  expect(packagesOf('test/declared-packages.test.ts')).toEqual([]);
  expect(packagesOf('test/rest/auth.test.ts')).toEqual(expect.arrayContaining(['@jest/globals']));
});
