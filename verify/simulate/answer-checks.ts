/**
 * AnswersMatchSpec (issues 24 and 26): the controller's answers the simulator sees on the
 * network, compared with the spec's answer from the controller's state. The controller's
 * configurations are immutable once recorded (HistoryImmutable), so the spec's answer for a
 * configuration number is the one the replicas recorded, which this keeps as first seen in
 * any controller view (and compares every later view with):
 *
 * - every configuration a controller answers (Query, Join, Leave, Move) is the one recorded
 *   at its number (`queryAnswersHistory` of the library);
 * - a Query(n) that reached a controller after configuration n was recorded is answered with
 *   configuration n itself: n was committed before the query entered the log, so the state
 *   the query was applied to held it (an older answer is the bug query-answers-older);
 * - a configuration answered as published is at most the highest published number seen.
 *
 * The groups' answers are compared in reply-checks.ts (ReplyMatchesSpec).
 */
import { queryAnswersHistory, sameConfig } from '../../invariants/config-history.js';
import type { Config } from '../../spec/controller/types.js';
import type { ServerView } from '../../impl/node/api.js';
import { decodeFrame, type Frame } from '../../impl/node/wire.js';
import type { NetworkEvent } from '../../impl/sim/simulated-network.js';
import type { Violation } from './safety-monitor.js';

const checkName = 'AnswersMatchSpec';

/** What the simulator saw of one query request: its number, and whether it had to be exact. */
interface AskedQuery {
  readonly num: number;
  /** Configuration num was recorded when the request first reached a controller. */
  readonly exact: boolean;
}

export class ControllerAnswers {
  /** configs[n]: configuration n as first seen in a controller view. */
  private readonly configs: Config[] = [];
  private publishedMax = 0;
  /** controller replica -> how many of its configurations were compared already. */
  private readonly compared = new Map<string, number>();
  /** `${client}/${frame id}` -> the query it asked. */
  private readonly asked = new Map<string, AskedQuery>();

  constructor(private readonly controllers: readonly string[]) {}

  /** A controller replica's applied state: its configurations must be the recorded ones. */
  observe(view: ServerView): Violation | null {
    if (view.kind !== 'controller') return null;
    const { configs, current } = view.state;
    this.publishedMax = Math.max(this.publishedMax, current);
    for (let num = this.compared.get(view.name) ?? 0; num < configs.length; num++) {
      const config = configs[num]!;
      const recorded = this.configs[num];
      if (recorded === undefined) this.configs[num] = config;
      else if (!sameConfig(recorded, config)) {
        return failure(`${view.name} holds another configuration ${num} than was recorded`);
      }
    }
    this.compared.set(view.name, configs.length);
    return null;
  }

  /** A frame delivered: a query to a controller is noted, a controller's answer compared. */
  delivered(event: NetworkEvent): Violation | null {
    if (event.kind !== 'deliver') return null;
    const toController = this.controllers.includes(event.to);
    const fromController = this.controllers.includes(event.from);
    if (toController === fromController) return null;
    const frame = decodeFrame(event.frame);
    if (frame === null || frame.kind === 'raft') return null;
    if (toController) {
      this.noteRequest(event.from, frame);
      return null;
    }
    return this.compareReply(event.from, event.to, frame);
  }

  /** The configurations recorded so far, by number. */
  recorded(): readonly Config[] {
    return this.configs;
  }

  private noteRequest(client: string, frame: Frame): void {
    if (frame.kind !== 'request' || frame.body.type !== 'controller') return;
    const command = frame.body.command;
    if (command.type !== 'query') return;
    const key = `${client}/${frame.id}`;
    if (this.asked.has(key)) return;
    const num = command.num;
    this.asked.set(key, { num, exact: num >= 0 && num < this.configs.length });
  }

  private compareReply(server: string, client: string, frame: Frame): Violation | null {
    if (frame.kind !== 'reply' || frame.body.type !== 'controller-result') return null;
    const { result, published } = frame.body;
    if (result.type !== 'config') return null;
    const answer = result.config;
    const asked = this.asked.get(`${client}/${frame.id}`);
    const what = `${server} answered ${client}` +
      (asked === undefined ? '' : `'s query ${asked.num}`) + ` with configuration ${answer.num}`;
    if (answer.num >= this.configs.length ||
      !queryAnswersHistory(this.configs, answer.num, answer)) {
      return failure(`${what}, which is not the recorded configuration ${answer.num}`);
    }
    if (asked?.exact === true && answer.num !== asked.num) {
      return failure(`${what}, but configuration ${asked.num} was recorded before the query ` +
        'reached the controller');
    }
    if (published && answer.num > this.publishedMax) {
      return failure(`${what} as published, but only ${this.publishedMax} was published`);
    }
    return null;
  }
}

const failure = (detail: string): Violation => ({ invariant: checkName, detail });

/**
 * The administrator's historical queries after the repair: each configuration it was told
 * of (the answers to its requests) is asked for again by number and must be the same.
 */
export async function queryHistory(
  query: (num: number) => Promise<{ status: string; value?: { config: Config } }>,
  told: ReadonlyMap<number, Config>,
): Promise<Violation | null> {
  for (const [num, config] of told) {
    const outcome = await query(num);
    if (outcome.status !== 'ok' || outcome.value === undefined) {
      return { invariant: 'AdminProgress', detail: `query ${num} was ${outcome.status}` };
    }
    if (!sameConfig(outcome.value.config, config)) {
      return failure(`query ${num} answered configuration ${outcome.value.config.num}, not ` +
        `the configuration ${num} the administrator was told of`);
    }
  }
  return null;
}
