/**
 * A strict flag parser: `--name value`, `--name=value` and boolean `--name`. Unknown flags
 * and missing values are usage errors (exit 2), as CONTRACT requires of every command.
 */
import { UsageError } from '../checker/params.js';

export interface FlagSpec {
  readonly name: string;
  /** `boolean` flags take no value; `value` flags take exactly one. */
  readonly kind: 'boolean' | 'value';
  readonly description: string;
  /** Shown in help, e.g. "N" or "FILE". */
  readonly valueName?: string;
}

export interface ParsedArgs {
  readonly positionals: readonly string[];
  readonly values: Readonly<Record<string, string>>;
  readonly booleans: ReadonlySet<string>;
}

export function parseArgs(argv: readonly string[], specs: readonly FlagSpec[]): ParsedArgs {
  const positionals: string[] = [];
  const values: Record<string, string> = {};
  const booleans = new Set<string>();
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index]!;
    if (token === '--') {
      positionals.push(...argv.slice(index + 1));
      break;
    }
    if (!token.startsWith('--') || token === '-') {
      positionals.push(token);
      continue;
    }
    const equals = token.indexOf('=');
    const name = token.slice(2, equals === -1 ? undefined : equals);
    const spec = specs.find((candidate) => candidate.name === name);
    if (!spec) throw new UsageError(`unknown flag --${name} (see --help)`);
    if (spec.kind === 'boolean') {
      if (equals !== -1) throw new UsageError(`--${name} takes no value`);
      booleans.add(name);
      continue;
    }
    const value = equals === -1 ? argv[++index] : token.slice(equals + 1);
    if (value === undefined || (equals === -1 && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value`);
    }
    if (name in values) throw new UsageError(`--${name} given twice`);
    values[name] = value;
  }
  return { positionals, values, booleans };
}

/** Reads an integer flag within [min, max]; undefined when absent. */
export function integerFlag(
  args: ParsedArgs,
  name: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const text = args.values[name];
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw new UsageError(`--${name} expects an integer, got '${text}'`);
  const value = Number(text);
  if (value < min || value > max) {
    throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  }
  return value;
}

/** Reads a number flag (seconds and the like) greater than zero. */
export function positiveNumberFlag(args: ParsedArgs, name: string): number | undefined {
  const text = args.values[name];
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || text.trim() === '') {
    throw new UsageError(`--${name} expects a positive number, got '${text}'`);
  }
  return value;
}

export function helpText(usage: string, summary: string, specs: readonly FlagSpec[]): string {
  const width = Math.max(...specs.map((spec) => flagTitle(spec).length), 10);
  const lines = specs.map((spec) => `  ${flagTitle(spec).padEnd(width)}  ${spec.description}`);
  return [`Usage: ${usage}`, '', summary, '', 'Options:', ...lines].join('\n');
}

function flagTitle(spec: FlagSpec): string {
  return spec.kind === 'boolean' ? `--${spec.name}` : `--${spec.name} ${spec.valueName ?? 'VALUE'}`;
}
