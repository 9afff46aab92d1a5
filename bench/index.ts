/**
 * `npm run bench`: prints throughput and memory figures. Not a test: nothing here passes or
 * fails on speed. Compare ratios within one run; this machine is shared and noisy.
 * `npm run bench -- NAME...` runs only the named sections (opt-in ones only so).
 */
import { sections } from './sections.js';

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !sections.some((section) => section.name === name));
if (unknown.length > 0) {
  const known = sections.map((section) => section.name).join(', ');
  process.stderr.write(`bench: unknown section ${unknown.join(', ')} (known: ${known})\n`);
  process.exit(2);
}
for (const section of sections) {
  if (wanted.length > 0 ? !wanted.includes(section.name) : section.optIn === true) continue;
  console.log(`\n## ${section.name}: ${section.description}`);
  await section.run();
}
