/**
 * The liveness pass of `shardkv check`: after a clean exhaustive search, a model that declares
 * temporal properties is checked on its state graph under weak fairness; a violation is a lasso
 * trace (with `loop`), written and printed like an invariant's counterexample.
 */
import type { AnyModel, ModelDefinition, Params } from '../checker/model.js';
import { checkLiveness, type LivenessResult } from '../checker/liveness.js';
import { buildLassoTrace, formatLasso } from '../checker/liveness-trace.js';
import type { SearchResult } from '../checker/search.js';
import type { Io } from './io.js';
import { writeTraceFiles } from './trace-files.js';

export interface LivenessRequest {
  readonly definition: ModelDefinition;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly maxStates: number | undefined;
  readonly timeLimitSeconds: number | undefined;
  readonly quiet: boolean;
  readonly json: boolean;
}

export interface LivenessOutcome {
  readonly result: LivenessResult;
  /** The lasso's trace file and its number of steps, when a property is violated. */
  readonly trace?: string;
  readonly traceLength?: number;
}

/** Runs the pass when the search was clean and exhaustive and the model has properties. */
export function runLivenessPass(
  request: LivenessRequest,
  model: AnyModel,
  search: SearchResult,
  tracePathOf: (property: string) => string,
  io: Io,
): LivenessOutcome | undefined {
  const properties = model.properties ?? [];
  if (search.result !== 'ok' || !search.exhaustive || properties.length === 0) return undefined;
  if (!request.quiet) io.stderr('Checking temporal properties under weak fairness');
  // The graph the search recorded, else (dfs, workers, a resumed search) one built for it.
  const result = checkLiveness(model, {
    ...(request.maxStates !== undefined ? { maxStates: request.maxStates } : {}),
    ...(request.timeLimitSeconds !== undefined
      ? { timeLimitSeconds: request.timeLimitSeconds }
      : {}),
  }, search.graph);
  if (result.result !== 'violation') return { result };
  const { definition, params, bug } = request;
  const built = buildLassoTrace(model, { model: definition.name, params, bug }, result.lasso!,
    result.property!);
  const trace = definition.modulePath ? { ...built, module: definition.modulePath } : built;
  const path = tracePathOf(result.property!);
  const itfPath = writeTraceFiles(path, trace);
  if (!request.json) {
    io.stdout(`Temporal property ${result.property} is violated by a lasso:`);
    io.stdout(formatLasso(trace));
    io.stdout(`Trace written to ${path} (ITF: ${itfPath})`);
  }
  return { result, trace: path, traceLength: trace.steps.length };
}

/** The liveness pass in the JSON summary: verdict, property, lasso loop, graph size. */
export function livenessSummary(liveness: LivenessResult) {
  return {
    result: liveness.result,
    properties: liveness.properties,
    ...(liveness.property ? { property: liveness.property, loop: liveness.lasso!.loop } : {}),
    ...(liveness.stoppedBy ? { stoppedBy: liveness.stoppedBy } : {}),
    distinctStates: liveness.distinctStates,
    edges: liveness.edges,
    graphBytes: liveness.graphBytes,
    seconds: Math.round(liveness.seconds * 1000) / 1000,
  };
}

export function livenessLine(liveness: LivenessResult): string {
  const verdict =
    liveness.result === 'violation'
      ? `LIVENESS VIOLATION of ${liveness.property}`
      : liveness.result === 'incomplete'
        ? `LIVENESS INCOMPLETE: stopped by ${liveness.stoppedBy}`
        : `LIVENESS OK under weak fairness: ${liveness.properties.join(', ')}`;
  const mebibytes = Math.round(liveness.graphBytes / 2 ** 20);
  const graph = `${liveness.distinctStates} states, ${liveness.edges} edges, ${mebibytes} MiB`;
  return `${verdict} (${graph})`;
}
