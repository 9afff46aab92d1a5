/**
 * Resolving a model's parameters: defaults, then a bug's documented bounds, then the user's
 * flags, each checked against the parameter's kind and range.
 */
import type { ModelDefinition, Params, ParamSpec, ParamValue } from './model.js';

export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses one flag's text into the parameter's kind, or throws a one-line UsageError. */
export function parseParam(spec: ParamSpec, text: string): ParamValue {
  switch (spec.kind) {
    case 'integer': {
      if (!/^-?\d+$/.test(text)) {
        throw new UsageError(`--${spec.name} expects an integer, got '${text}'`);
      }
      const value = Number(text);
      if (
        (spec.min !== undefined && value < spec.min) ||
        (spec.max !== undefined && value > spec.max)
      ) {
        throw new UsageError(
          `--${spec.name} must be between ${spec.min} and ${spec.max}, got ${value}`,
        );
      }
      return value;
    }
    case 'boolean':
      if (text === 'true' || text === '') return true;
      if (text === 'false') return false;
      throw new UsageError(`--${spec.name} expects true or false, got '${text}'`);
    case 'choice':
      if (!spec.choices?.includes(text)) {
        throw new UsageError(
          `--${spec.name} must be one of ${spec.choices?.join(', ')}, got '${text}'`,
        );
      }
      return text;
  }
}

/** The model's parameters with a bug's bounds and the user's values applied. */
export function resolveParams(
  definition: ModelDefinition,
  bug: string | undefined,
  given: Readonly<Record<string, string>>,
): Params {
  const params: Record<string, ParamValue> = {};
  for (const spec of definition.params) params[spec.name] = spec.default;
  if (bug !== undefined) {
    const bugSpec = definition.bugs.find((candidate) => candidate.name === bug);
    if (!bugSpec) {
      const known = definition.bugs.map((candidate) => candidate.name).join(', ') || 'none';
      throw new UsageError(`model ${definition.name} has no bug '${bug}' (known: ${known})`);
    }
    Object.assign(params, bugSpec.bounds ?? {});
  }
  for (const [name, text] of Object.entries(given)) {
    const spec = definition.params.find((candidate) => candidate.name === name);
    if (!spec) throw new UsageError(`model ${definition.name} has no parameter --${name}`);
    params[name] = parseParam(spec, text);
  }
  return params;
}

/** "servers=3 max-term=2", for tables and progress lines. */
export function describeParams(params: Params): string {
  return Object.entries(params)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');
}
