/**
 * The clients of a simulated run: each runs one clerk and issues, one at a time, gets, puts
 * and appends on a small key set, with a seeded pause between operations. Every write
 * carries a unique token (write-checks.ts), so the final values say which writes they hold.
 * What each clerk learns goes into the history; an operation the clerk could not finish is
 * unknown, never failed (CONTRACT "Histories").
 */
import type { Random } from '../../impl/io/random.js';
import type { Outcome } from '../../impl/node/api.js';
import type { VirtualClock } from '../../impl/sim/virtual-clock.js';
import type { EventLog } from './event-log.js';
import type { HistoryRecorder, KeyValueOperation } from './history.js';
import { describeValue, writeValue } from './large-values.js';
import { writeToken } from './write-checks.js';

/** What the simulator asks of a key/value clerk (impl/clerk). */
export interface KeyValueClerk {
  get(key: string): Promise<Outcome<string>>;
  put(key: string, value: string): Promise<Outcome<unknown>>;
  append(key: string, value: string): Promise<Outcome<unknown>>;
}

export interface WorkloadSetup {
  readonly clock: VirtualClock;
  readonly log: EventLog;
  readonly history: HistoryRecorder;
  readonly keys: readonly string[];
  /** Written values are padded to this many bytes (large-values.ts). */
  readonly valueBytes: number;
  /** True once the active phase is over: clients finish their operation and stop. */
  readonly stopping: () => boolean;
}

/** The groups' refusal of a client whose session the administrator expired. */
const sessionExpiredError = 'session-expired';
/** The groups' refusal of a write that would leave the value over the size limit. */
const valueTooLargeError = 'value-too-large';

/** A client waits up to this long between two operations. */
export const thinkTimeMsMax = 20;

export function clientName(index: number): string {
  return `client-${index}`;
}

/** One client's loop; resolves when it stopped. Returns how many operations it issued. */
export async function runClient(
  setup: WorkloadSetup,
  index: number,
  clerk: KeyValueClerk,
  random: Random,
): Promise<number> {
  const { clock, log, history, keys } = setup;
  const name = clientName(index);
  let issued = 0;
  while (!setup.stopping()) {
    await clock.sleep(random.nextInt(thinkTimeMsMax + 1));
    if (setup.stopping()) break;
    const key = keys[random.nextInt(keys.length)]!;
    const choice = random.nextInt(10);
    const op: KeyValueOperation = choice < 4 ? 'get' : choice < 6 ? 'put' : 'append';
    issued++;
    const token = writeToken(index, issued);
    const value = op === 'get' ? undefined : writeValue(token, setup.valueBytes);
    const operation = history.call(name, op, key, value);
    log.add(clock.now(), name,
      `call ${op} ${key}${value === undefined ? '' : ' ' + describeValue(token, value)}`);
    const outcome = op === 'get' ? await clerk.get(key)
      : op === 'put' ? await clerk.put(key, value!) : await clerk.append(key, value!);
    if (outcome.status === 'ok') {
      const output = op === 'get' ? String(outcome.value) : undefined;
      history.returned(operation, output);
      log.add(clock.now(), name, `ok ${op} ${key}` +
        (output === undefined ? '' : ` (${output.length} characters)`));
    } else {
      // A value over the size limit is refused by the first attempt that applies, and every
      // retry answers from its dedup record: nothing was written. Any other refusal counts as
      // unknown: an earlier attempt may have applied (an expired session's, say).
      if (outcome.status === 'refused' && outcome.error === valueTooLargeError) {
        history.refused(operation);
      } else history.unknown(operation);
      log.add(clock.now(), name, `${outcome.status} ${op} ${key}: ${outcome.error}`);
      // The operator expired this client's session: it is done (it would be refused again).
      if (outcome.status === 'refused' && outcome.error === sessionExpiredError) break;
    }
  }
  return issued;
}
