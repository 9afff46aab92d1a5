/**
 * The `shardkv` command: one binary, one subcommand per job (CONTRACT). Each subcommand
 * returns its exit code; a UsageError anywhere becomes a one-line reason and exit 2.
 */
import { readFileSync } from 'node:fs';
import { UsageError } from '../checker/params.js';
import { exitOk, exitProblem, exitUsage, processIo, type Io } from './io.js';

interface Command {
  readonly summary: string;
  run(argv: readonly string[], io: Io): number | Promise<number>;
}

// Commands load their modules on first use: `lincheck` need not load every model.
const commands: Readonly<Record<string, Command>> = {
  check: {
    summary: 'bounded model check of a model (check MODEL --help)',
    run: async (argv, io) => (await import('./check.js')).checkCommand(argv, io),
  },
  merge: {
    summary: 'combine the --json summaries of a swarm split across processes',
    run: async (argv, io) => (await import('./merge.js')).mergeCommand(argv, io),
  },
  replay: {
    summary: 're-execute a trace through the spec',
    run: async (argv, io) => (await import('./replay.js')).replayCommand(argv, io),
  },
  explore: {
    summary: 'walk a model\'s state space in the browser (a local web server)',
    run: async (argv, io) => (await import('./explore/command.js')).exploreCommand(argv, io),
  },
  models: {
    summary: 'list the models, their bounds and invariants',
    run: async (argv, io) => (await import('./catalog.js')).modelsCommand(argv, io),
  },
  bugs: {
    summary: 'list the known-bug mutations',
    run: async (argv, io) => (await import('./catalog.js')).bugsCommand(argv, io),
  },
  lincheck: {
    summary: 'check that a key/value history is linearizable',
    run: async (argv, io) => (await import('./lincheck.js')).lincheckCommand(argv, io),
  },
  simulate: {
    summary: 'seeded runs of the whole sharded cluster over a simulated network, disk, clock',
    run: async (argv, io) => (await import('./simulate.js')).simulateCommand(argv, io),
  },
  mbt: {
    summary: 'model-based testing: drive the runtime along model schedules (mbt MODEL --help)',
    run: async (argv, io) => (await import('./mbt.js')).mbtCommand(argv, io),
  },
  conform: {
    summary: 'validate runtime traces (cluster --trace, simulate --trace) against the spec',
    run: async (argv, io) => (await import('./conform.js')).conformCommand(argv, io),
  },
  cluster: {
    summary: 'run a real cluster: init, start, stop, status, kill, restart, net, isolate, heal',
    run: async (argv, io) => (await import('./cluster.js')).clusterCommand(argv, io),
  },
  node: {
    summary: 'run one server of a cluster in the foreground (systemd, containers)',
    run: async (argv, io) => (await import('./node.js')).nodeCommand(argv, io),
  },
  ctl: {
    summary: 'the shard controller: join, leave, move, query',
    run: async (argv, io) => (await import('./ctl.js')).ctlCommand(argv, io),
  },
  kv: {
    summary: 'key/value operations on a cluster: get, put, append',
    run: async (argv, io) => (await import('./kv.js')).kvCommand(argv, io),
  },
  'check-all': {
    summary: 'default bounded check of every model, as a table (npm start)',
    run: async (argv, io) => (await import('./check-all.js')).checkAllCommand(argv, io),
  },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  return [
    'Usage: shardkv COMMAND [options]',
    '',
    'A spec-driven model checker and reference implementation of a sharded KV store.',
    '',
    'Commands:',
    ...Object.entries(commands).map(
      ([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`,
    ),
    '',
    '`shardkv COMMAND --help` describes a command; `shardkv --version` prints the version.',
    'Exit codes: 0 success, 1 a problem found, 2 usage error or invalid input.',
  ].join('\n');
}

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(mainHelp());
    return name === undefined ? exitUsage : exitOk;
  }
  if (name === '--version' || name === '-V') {
    io.stdout(`shardkv ${packageVersion()}`);
    return exitOk;
  }
  const command = commands[name];
  // CONTRACT: with --json, exactly one JSON object is the last line of stdout, errors included.
  const json = rest.includes('--json');
  const fail = (message: string, code: number, detail = '') => {
    io.stderr(message + detail);
    if (json) io.stdout(JSON.stringify({ ok: false, error: message }));
    return code;
  };
  try {
    if (!command) throw new UsageError(`unknown command '${name}' (see shardkv --help)`);
    return await command.run(rest, io);
  } catch (error) {
    // By name: a command module loaded by import() may hold its own copy of the class.
    if (error instanceof Error && error.name === UsageError.name) {
      return fail(`shardkv ${command ? name + ': ' : ''}${error.message}`, exitUsage);
    }
    // A user's model that throws is invalid input, not a problem found (checker/model-guard).
    if (error instanceof Error && error.name === 'ModelError') {
      return fail(`shardkv ${name}: ${error.message}`, exitUsage);
    }
    const stack = (error as Error).stack;
    const detail = stack ? `\n${stack}` : '';
    return fail(`shardkv: internal error: ${String(error)}`, exitProblem, detail);
  }
}

/** The version in package.json, read at run time so that it cannot drift. */
function packageVersion(): string {
  // From cli/main.ts (tsx) or dist/cli/main.js (built), package.json is the first one up.
  for (const relative of ['../package.json', '../../package.json']) {
    try {
      const text = readFileSync(new URL(relative, import.meta.url), 'utf8');
      const manifest = JSON.parse(text) as { name?: string; version?: string };
      if (manifest.name === 'shardkv' && manifest.version) return manifest.version;
    } catch {
      // not this folder: try the next one up
    }
  }
  return 'unknown';
}

export { exitOk };
