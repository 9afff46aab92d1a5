/**
 * `npm run bench -- migration`: the migration model's exhaustive check at default bounds (the
 * issue's bar: at least 100,000 distinct states in under 120 s) and its codec's throughput.
 */
import { breadthFirstSearch } from '../checker/bfs.js';
import { resolveParams } from '../checker/params.js';
import { WordReader, WordWriter } from '../checker/words.js';
import { migrationDefinition } from '../models/migration/model.js';
import type { BenchSection } from './sections.js';

async function run(): Promise<void> {
  const params = resolveParams(migrationDefinition, undefined, {});
  const model = migrationDefinition.create(params, undefined);
  const result = breadthFirstSearch(model);
  const rate = Math.round(result.statesGenerated / result.seconds);
  const heapMiB = Math.round(process.memoryUsage().heapUsed / 2 ** 20);
  console.log(
    `bfs ${result.result}: ${result.distinctStates} distinct, ` +
      `${result.statesGenerated} generated, depth ${result.depth}, ` +
      `${result.seconds.toFixed(2)} s, ${rate} states/s, heap ${heapMiB} MiB`,
  );
  // Codec round trips over the states along one deep behaviour.
  let state = model.initialStates()[0];
  const states: unknown[] = [];
  for (let depth = 0; depth < 20; depth++) {
    states.push(state);
    const successor = model
      .actions(state)
      .map((action) => model.next(state, action))
      .find((next) => next !== null);
    if (successor === undefined || successor === null) break;
    state = successor;
  }
  const writer = new WordWriter();
  const rounds = 20_000;
  const started = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const sample of states) {
      writer.reset();
      model.codec.encode(sample, writer);
      model.codec.decode(new WordReader(writer.words, 0, writer.length));
    }
  }
  const perSecond = Math.round((rounds * states.length) / ((performance.now() - started) / 1000));
  console.log(`codec: ${perSecond} encode+decode round trips/s (${states.length} sample states)`);
}

export const migrationBench: BenchSection = {
  name: 'migration',
  description: 'exhaustive check of the migration model at default bounds; codec throughput',
  run,
};
