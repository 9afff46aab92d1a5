/**
 * TwoPhase.tla's next-state relation on the encoded state (twophase.ts's codec), for the
 * checker's hot loop (Model.successorWords): each successor is written straight into words,
 * with no state object, in the order of the model's actions. Word 0 holds tmState (2 bits),
 * the Commit and the Abort message; then 4 bits per resource manager, eight to a word:
 * rmState (2 bits), tmPrepared, its Prepared message. The test checks it against `step`.
 */
import type { WordWriter } from '../../checker/words.js';

const tmInit = 0;
const tmCommitted = 1;
const tmAborted = 2;
const commitMsgBit = 4;
const abortMsgBit = 8;
const rmWorking = 0;
const rmPrepared = 1;
const rmCommitted = 2;
const rmAborted = 3;
const tmPreparedBit = 4;
const preparedMsgBit = 8;

export type SuccessorWords = (
  words: Int32Array,
  start: number,
  end: number,
  out: WordWriter,
  emit: (actionIndex: number) => void,
) => void;

/** Emits the successor that differs from words[start, end) in word `offset` only. */
function emitWord(
  words: Int32Array,
  start: number,
  end: number,
  out: WordWriter,
  offset: number,
  value: number,
): void {
  out.reset();
  out.pushWords(words, start, end);
  out.words[offset] = value;
}

export function twoPhaseSuccessorWords(resourceManagers: number): SuccessorWords {
  return (words, start, end, out, emit) => {
    const head = words[start]!;
    const initial = (head & 3) === tmInit;
    if (initial) {
      let allPrepared = true;
      for (let rm = 0; rm < resourceManagers && allPrepared; rm++) {
        const nibble = (words[start + 1 + (rm >> 3)]! >>> ((rm & 7) * 4)) & 15;
        allPrepared = (nibble & tmPreparedBit) !== 0;
      }
      if (allPrepared) {
        emitWord(words, start, end, out, 0, (head & ~3) | tmCommitted | commitMsgBit);
        emit(0);
      }
      emitWord(words, start, end, out, 0, (head & ~3) | tmAborted | abortMsgBit);
      emit(1);
    }
    for (let rm = 0; rm < resourceManagers; rm++) {
      const offset = 1 + (rm >> 3);
      const shift = (rm & 7) * 4;
      const word = words[start + offset]!;
      const nibble = (word >>> shift) & 15;
      const others = word & ~(15 << shift);
      const base = 2 + rm * 5;
      if (initial && (nibble & preparedMsgBit) !== 0) {
        emitWord(words, start, end, out, offset, others | ((nibble | tmPreparedBit) << shift));
        emit(base);
      }
      if ((nibble & 3) === rmWorking) {
        const prepared = (nibble & ~3) | rmPrepared | preparedMsgBit;
        emitWord(words, start, end, out, offset, others | (prepared << shift));
        emit(base + 1);
        emitWord(words, start, end, out, offset, others | (((nibble & ~3) | rmAborted) << shift));
        emit(base + 2);
      }
      if ((head & commitMsgBit) !== 0) {
        const committed = (nibble & ~3) | rmCommitted;
        emitWord(words, start, end, out, offset, others | (committed << shift));
        emit(base + 3);
      }
      if ((head & abortMsgBit) !== 0) {
        emitWord(words, start, end, out, offset, others | (((nibble & ~3) | rmAborted) << shift));
        emit(base + 4);
      }
    }
  };
}
