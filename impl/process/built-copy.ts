/**
 * The compiled copy in dist/ of a source file, when dist/ is current: built after every
 * source file it compiles last changed. Processes started from the sources (the tests) run
 * the copy without tsx's loader, which costs about a second of CPU per process; a stale or
 * missing dist/ (sources edited since `npm run build`) falls back to the sources.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repository = fileURLToPath(new URL('../../', import.meta.url));
const built = join(repository, 'dist');

let current: boolean | undefined;

/** The folders `npm run build` compiles (tsconfig.build.json's include). */
function compiledFolders(): string[] {
  const config = JSON.parse(readFileSync(join(repository, 'tsconfig.build.json'), 'utf8'));
  return config.include as string[];
}

function isCurrent(): boolean {
  if (!existsSync(built)) return false;
  for (const folder of compiledFolders()) {
    const names = readdirSync(join(repository, folder), { recursive: true, encoding: 'utf8' });
    for (const name of names) {
      if (!name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
      const source = join(repository, folder, name);
      const copy = join(built, folder, `${name.slice(0, -'.ts'.length)}.js`);
      if (!existsSync(copy) || statSync(copy).mtimeMs < statSync(source).mtimeMs) return false;
    }
  }
  return true;
}

/** dist/'s copy of `source` (a .ts file under the repository), or null if dist/ is stale. */
export function builtCopy(source: string): string | null {
  current ??= isCurrent();
  if (!current) return null;
  const path = relative(repository, source);
  return join(built, `${path.slice(0, -'.ts'.length)}.js`);
}
