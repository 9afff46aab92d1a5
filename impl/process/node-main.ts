/**
 * The node process `cluster start` and `cluster restart` spawn (node-run.ts does the work).
 * Everything it logs goes to stderr, which `spawnNode` points at the node's log file.
 *
 *     node-main --dir DIR --node NAME
 */
import { fatalLine, runNode } from './node-run.js';

function log(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

function parseArguments(argv: readonly string[]): { directory: string; name: string } {
  const directory = argv[argv.indexOf('--dir') + 1];
  const name = argv[argv.indexOf('--node') + 1];
  if (!argv.includes('--dir') || !argv.includes('--node') || !directory || !name) {
    throw new Error('usage: node-main --dir DIR --node NAME');
  }
  return { directory, name };
}

async function main(): Promise<void> {
  const { directory, name } = parseArguments(process.argv.slice(2));
  const node = await runNode({ directory, name, log });
  await node.stopped;
  process.exit(0);
}

main().catch((error: Error) => {
  // The reason on one line, then the stack.
  log(fatalLine(error));
  log(error.stack ?? '(no stack)');
  process.exit(1);
});
