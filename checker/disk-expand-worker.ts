/**
 * A worker of the disk search on several threads (disk-parallel.ts): it expands the chunks of
 * a level's frontier it is sent and returns each state's successors, fingerprinted, in the
 * order one thread generates them. It keeps no visited set: the main thread decides which are
 * new. A state whose expansion must be recorded (no successor: perhaps a deadlock; a
 * successor outside the bounds that violates an invariant) is flagged and left to the main
 * thread, which expands it itself as one thread would.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadModelSource } from './load-model.js';
import type { AnyModel } from './model.js';
import { violatedInvariant } from './search.js';
import { SuccessorKind, Successors } from './successors.js';
import { WordWriter } from './words.js';
import { failedReply } from './worker-handle.js';
import {
  candidateHeaderWords,
  expandedBySelf,
  stateHeaderWords,
  type ChunkRequest,
  type DiskWorkerSetup,
  type ExpandedChunk,
} from './disk-parallel-protocol.js';

const setup = workerData as DiskWorkerSetup;
const definition = await loadModelSource(setup.model);
const model: AnyModel = definition.create(setup.params, setup.bug);
const port = parentPort!;
const parentWords = new WordWriter();
/** The expansion loop of every search (explorer.ts). */
const successors = new Successors(model);
/**
 * The fingerprints this worker generated last, one a slot by their low bits: a successor
 * whose fingerprint it generated before, in this level or an earlier one, comes after that
 * one in the order one thread generates them, so it is never new (the first is new or was
 * known) and the main thread need not see it. The worker's chunks come in the frontier's order.
 */
const seen = new Int32Array(setup.seenSlots * 2);
const seenMask = setup.seenSlots - 1;
/** The reply being written: per state its header, then its candidates. */
const out = new WordWriter();
let generated = 0;
let candidates = 0;

/** Successor k (one to look up), as a candidate: high, low, action, length, words. */
function candidate(k: number): void {
  const high = successors.highs[k]!;
  const low = successors.lows[k]!;
  const slot = (low & seenMask) * 2;
  if (seen[slot] === high && seen[slot + 1] === low) return;
  seen[slot] = high;
  seen[slot + 1] = low;
  const start = successors.starts[k]!;
  const length = successors.ends[k]! - start;
  const at = out.claim(candidateHeaderWords + length);
  const words = out.words;
  words[at] = high;
  words[at + 1] = low;
  words[at + 2] = successors.actionIndexes[k]!;
  words[at + 3] = length;
  const source = successors.words.words;
  const first = at + candidateHeaderWords;
  for (let index = 0; index < length; index++) words[first + index] = source[start + index]!;
  candidates++;
}

/** Generates one state's successors (as Explorer.expand); false: the main thread must. */
function expand(): boolean {
  successors.expand(parentWords);
  for (let k = 0; k < successors.count; k++) {
    generated++;
    const kind = successors.kinds[k]!;
    if (kind === SuccessorKind.Inside) candidate(k);
    if (kind !== SuccessorKind.Outside) continue;
    if (violatedInvariant(model, successors.states[k]) !== null) return false;
  }
  return successors.count > 0;
}

function expandChunk(request: ChunkRequest): ExpandedChunk {
  const { chunk, count } = request;
  out.words = new Int32Array(request.out);
  out.reset();
  for (let state = 0, position = 0; state < count; state++) {
    const length = chunk[position]!;
    parentWords.reset();
    parentWords.pushWords(chunk, position + 1, position + 1 + length);
    position += 1 + length;
    const header = out.claim(stateHeaderWords);
    generated = 0;
    candidates = 0;
    const expanded = expand();
    if (!expanded) out.length = header + stateHeaderWords;
    out.words[header] = expanded ? generated : 0;
    out.words[header + 1] = expanded ? 0 : expandedBySelf;
    out.words[header + 2] = expanded ? candidates : 0;
  }
  const buffer = out.words.buffer as ArrayBuffer;
  return { type: 'expanded', chunk, count, out: buffer, length: out.length };
}

port.on('message', (request: ChunkRequest) => {
  try {
    const reply = expandChunk(request);
    port.postMessage(reply, [reply.chunk.buffer as ArrayBuffer, reply.out]);
  } catch (error) {
    port.postMessage(failedReply(error));
  }
});
port.postMessage({ type: 'ready' });
