// spec/ is pure (DESIGN §2, STYLE §1): no I/O, no clock, no randomness, no timers. Every
// decision the environment makes is an input. This scan keeps it so.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';

const forbidden: readonly [RegExp, string][] = [
  [/from ['"]node:/, 'a Node built-in module'],
  [/\bDate\b/, 'the clock (Date)'],
  [/\bperformance\./, 'the clock (performance)'],
  [/Math\.random/, 'randomness'],
  [/\bset(Timeout|Interval|Immediate)\b/, 'a timer'],
  [/\bprocess\./, 'the process'],
];

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

test('no file in spec/ touches I/O, clocks, timers or randomness', () => {
  const files = sourceFiles('spec');
  assert.ok(files.length > 20, `found only ${files.length} spec files`);
  const offences: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, index) => {
      if (line.trimStart().startsWith('//') || line.trimStart().startsWith('*')) return;
      for (const [pattern, what] of forbidden) {
        if (pattern.test(line)) offences.push(`${file}:${index + 1} uses ${what}`);
      }
    });
  }
  assert.equal(offences, []);
});

test('the scan itself catches an offence', () => {
  const [datePattern] = forbidden[1]!;
  assert.ok(datePattern.test('const now = Date.now();'));
  assert.not.ok(datePattern.test('const update = 1;'));
});

test.run();
