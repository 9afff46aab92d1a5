/**
 * `shardkv explore MODEL [bounds] [--bug NAME] [--port P] [--host H]`: serves the explorer
 * (docs/explore.md) for one model at its bounds until Ctrl-C. Exit 2 for a bad model, bound
 * or flag and for a port that cannot be listened on; 0 after Ctrl-C / SIGTERM.
 */
import { UsageError, resolveParams } from '../../checker/params.js';
import { isModulePath, loadModelModule } from '../../checker/load-model.js';
import type { ModelDefinition } from '../../checker/model.js';
import { findModel, modelDefinitions } from '../../models/registry.js';
import { helpText, integerFlag, parseArgs, positiveNumberFlag, type FlagSpec } from '../args.js';
import { describeBounds, givenParams, modelFlags } from '../check.js';
import { exitOk, type Io } from '../io.js';
import { startExploreServer } from './server.js';
import { ExploreSession } from './session.js';

const flags: readonly FlagSpec[] = [
  { name: 'bug', kind: 'value', valueName: 'NAME', description: 'explore a known-bug mutation' },
  { name: 'port', kind: 'value', valueName: 'P', description: 'port to listen on (default ' +
    '3000; 0: any free port)' },
  { name: 'host', kind: 'value', valueName: 'HOST', description: 'address to listen on ' +
    '(default 127.0.0.1, loopback only)' },
  { name: 'search-time-limit', kind: 'value', valueName: 'SECONDS', description: 'the ' +
    'violation search stops after this long (default 60)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

const usage = 'shardkv explore MODEL [bounds...] [--bug NAME] [--port P] [--host HOST]';
const summary = 'serve a page to walk MODEL\'s state space in a browser: initial states, enabled\n' +
  'actions with their diffs, invariants, the path (shareable URL), the shortest violation\n' +
  'by BFS, the sequence diagram. Runs until Ctrl-C. Exit 2 for bad input.';

async function definitionOf(name: string | undefined): Promise<ModelDefinition> {
  if (name === undefined || name.startsWith('--')) {
    throw new UsageError('explore needs a MODEL (see `shardkv models`)');
  }
  const definition = findModel(name) ?? (isModulePath(name) ? await loadModelModule(name) : undefined);
  if (definition === undefined) {
    const known = modelDefinitions.map((candidate) => candidate.name).join(', ');
    throw new UsageError(`unknown model '${name}' (known: ${known})`);
  }
  return definition;
}

export async function exploreCommand(argv: readonly string[], io: Io): Promise<number> {
  if (argv[0] === '--help' || argv[0] === undefined) {
    io.stdout(helpText(usage, summary, flags));
    return argv[0] === undefined ? 2 : exitOk;
  }
  const definition = await definitionOf(argv[0]);
  const args = parseArgs(argv.slice(1), [...modelFlags(definition), ...flags]);
  if (args.booleans.has('help')) {
    io.stdout(helpText(usage.replace('MODEL', definition.name), summary,
      [...modelFlags(definition), ...flags]));
    return exitOk;
  }
  if (args.positionals.length > 0) {
    throw new UsageError(`unexpected argument '${args.positionals[0]}'`);
  }
  const bug = args.values['bug'];
  const params = resolveParams(definition, bug, givenParams(definition, args));
  const model = definition.create(params, bug);
  const session = new ExploreSession(model, positiveNumberFlag(args, 'search-time-limit') ?? 60);
  const title = `${definition.name} ${describeBounds(definition, params)}`.trimEnd() +
    (bug ? ` bug=${bug}` : '');
  const host = args.values['host'] ?? '127.0.0.1';
  const port = integerFlag(args, 'port', 0, 65535) ?? 3000;
  const server = await startExploreServer(session, title, host, port).catch((error: Error) => {
    throw new UsageError(`cannot listen on ${host}:${port} (${(error as NodeJS.ErrnoException)
      .code ?? error.message})`);
  });
  io.stdout(`exploring ${title} at ${server.url} (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
  return exitOk;
}
