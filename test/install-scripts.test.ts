// `npm ci` runs the install scripts of the packages package-lock.json marks `hasInstallScript`;
// npm (11.x) warns about each one that package.json's `allowScripts` does not name. Every such
// script was read before it was approved: esbuild's install.js, with its platform package
// present (npm ci installs it), only hard-links the native binary and checks its version.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

interface Lock { readonly packages: Record<string, { version?: string; hasInstallScript?: boolean;
  optional?: boolean }> }

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
  allowScripts?: Record<string, boolean>;
};
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as Lock;

test('every locked package with an install script is approved in allowScripts', () => {
  const allowed = manifest.allowScripts ?? {};
  const withScripts = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.hasInstallScript === true)
    .map(([path, entry]) => ({
      name: path.replace(/^.*node_modules\//, ''), version: entry.version,
    }));
  assert.ok(withScripts.length > 0, 'the lockfile names no install script: drop this test');
  for (const { name, version } of withScripts) {
    const approved = allowed[name] === true || allowed[`${name}@${version}`] === true;
    assert.ok(approved, `${name}@${version} runs an install script allowScripts does not name`);
  }
});

test.run();
