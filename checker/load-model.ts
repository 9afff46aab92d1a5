/**
 * Models from outside the registry: `shardkv check ./my-model.ts` (or any module path)
 * imports the module and takes its model definition, the default export or the first
 * export that is one. A definition made by `defineModel` is used as it is; a plain
 * declaration object (`{ name, description, params?, create }`) goes through `defineModel`,
 * so a model module needs no import from this package. A `.ts` module is compiled by tsx's
 * scoped `tsImport` (a devDependency here), which registers no global loader.
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defineModel, type ModelDeclaration, type ParamDeclarations } from './define-model.js';
import { guardModel } from './model-guard.js';
import type { ModelDefinition, Params } from './model.js';
import { UsageError } from './params.js';

/** A MODEL argument that names a file rather than a registered model. */
export function isModulePath(name: string): boolean {
  return /[\\/]/.test(name) || /\.(ts|mts|js|mjs)$/.test(name);
}

/**
 * Where a worker thread finds a model: the module that exports it (the models' registry, or a
 * user's model module) and, for the registry, the model's name (`modelSource`).
 */
export interface ModelSource {
  readonly module: string;
  readonly name?: string;
}

/** The source a worker loads `definition` from; `registry` exports the registered models. */
export function modelSource(
  definition: ModelDefinition,
  registry: string | undefined,
): ModelSource {
  if (definition.modulePath !== undefined) return { module: definition.modulePath };
  if (registry === undefined) throw new Error(`no registry module to load ${definition.name} from`);
  return { module: registry, name: definition.name };
}

/**
 * The model a worker thread runs (`modelSource`'s). A registered model is not guarded: the
 * wrappers of model-guard.ts cost a quarter of the raft.tla preset's CPU time on one thread
 * (26.5 s against 33.5 s user, load 10-12), and the package's own models are tested.
 */
export async function loadModelSource(source: ModelSource): Promise<ModelDefinition> {
  if (source.name === undefined) return loadModelModule(source.module);
  return (await importDefinition(source.module, source.name)).definition;
}

type Importer = (specifier: string) => Promise<unknown>;

/** tsx's scoped import: it compiles the module whatever its directory's module type. */
async function typeScriptImporter(): Promise<Importer> {
  try {
    const api = await import('tsx/esm/api');
    return (specifier) => api.tsImport(specifier, import.meta.url);
  } catch {
    throw new UsageError('a .ts model needs tsx installed (npm install tsx), or compile it to .js');
  }
}

type Exported = Partial<ModelDefinition> & { params?: unknown; create?: unknown };

function asDefinition(value: unknown): ModelDefinition | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const candidate = value as Exported;
  const named = typeof candidate.name === 'string';
  if (!named || typeof candidate.create !== 'function') return undefined;
  if (Array.isArray(candidate.params) && Array.isArray(candidate.bugs)) {
    return candidate as ModelDefinition;
  }
  return defineModel(value as ModelDeclaration<ParamDeclarations, unknown, unknown>);
}

/**
 * Imports the module at `path` (relative to the working directory, or a file URL) and takes
 * its model: the one called `name` when given (an exported array of definitions counts too).
 */
export async function loadModelModule(path: string, name?: string): Promise<ModelDefinition> {
  const { definition, absolute } = await importDefinition(path, name);
  return guardedDefinition(definition, absolute);
}

async function importDefinition(
  path: string,
  name: string | undefined,
): Promise<{ definition: ModelDefinition; absolute: string }> {
  const absolute = path.startsWith('file:') ? fileURLToPath(path) : resolve(path);
  const importer: Importer = /\.[mc]?ts$/.test(absolute)
    ? await typeScriptImporter()
    : (specifier) => import(specifier);
  let exports: Record<string, unknown>;
  try {
    exports = (await importer(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    // The checker reads no disk itself (test/impl/io-confinement.test.ts): a missing file is
    // told by the import's own error.
    const missing = (error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      (error as Error).message.includes(absolute);
    if (missing) throw new UsageError(`no model module at ${path}`);
    throw new UsageError(`cannot load the model module ${path}: ${(error as Error).message}`);
  }
  const values = ['default', ...Object.keys(exports)].map((name) => exports[name]);
  // A module compiled as CommonJS (no "type": "module" near it) nests its default export.
  const nested = exports['default'] as { default?: unknown } | undefined;
  if (typeof nested === 'object' && nested !== null) values.push(nested.default);
  if (name !== undefined) {
    const listed = values.flatMap((value) => (Array.isArray(value) ? value : [value]));
    const named = listed.find((value) => asDefinition(value)?.name === name);
    if (named === undefined) throw new UsageError(`${path} exports no model named ${name}`);
    return { definition: asDefinition(named)!, absolute };
  }
  for (const value of values) {
    const definition = asDefinition(value);
    if (definition) return { definition, absolute };
  }
  throw new UsageError(`${path} exports no model definition (see docs/adding-a-model.md)`);
}

/**
 * A delegating object (the module's own definition stays as it was exported) whose models
 * report their failures with the state and action (model-guard.ts).
 */
function guardedDefinition(definition: ModelDefinition, absolute: string): ModelDefinition {
  return Object.create(definition, {
    modulePath: { value: absolute, enumerable: true },
    create: {
      value: (params: Params, bug: string | undefined) =>
        guardModel(definition.create(params, bug)),
      enumerable: true,
    },
  }) as ModelDefinition;
}
