#!/usr/bin/env node
// Runs the uvu suite under c8 (coverage thresholds for spec/ and checker/) and ends with the
// line CI reads: "N passed, N failed". uvu prints its own totals; this sums them.
import { spawn } from 'node:child_process';

const pattern = process.argv[2] ?? '.*\\.test\\.ts$';
const c8 = [
  'c8', '--all', '--check-coverage', '--lines', '90',
  '--include', 'spec/**', '--include', 'checker/**',
  // Files of types only compile to nothing; counting their comments would be noise.
  '--exclude', 'checker/model.ts', '--exclude', '**/types.ts',
  '--reporter', 'text-summary', '--reporter', 'text',
  'node', '--import', 'tsx', 'node_modules/uvu/bin.js', 'test', pattern,
];
const child = spawn('npx', c8, { stdio: ['ignore', 'pipe', 'inherit'] });
let output = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  output += chunk.toString();
});
child.on('close', (code) => {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
  const failed = total - passed + (code !== 0 && total === passed ? 1 : 0);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? 1);
});
