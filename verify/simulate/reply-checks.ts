/**
 * ReplyMatchesSpec (issues 24 and 26): every answer a group server sends to a clerk or to a
 * migration driver is compared, as it is sent, with the spec's answer from the state the
 * server holds at that moment. A server answers an entry right after applying it, and a read
 * once its index applied, before anything else applies (server.ts applyEntry), so that state
 * is the one the answer came from, with the request's own effect in it. The spec answers the
 * same request applied to it again alike: a write from its dedup record, a refusal changed
 * nothing, a get reads, a migration step repeated under its identity returns its first fact
 * (migration-steps.ts). An answer that differs is one the spec would not have given, whether
 * or not a client's history ever shows it (a wrong ErrWrongGroup only costs a retry).
 *
 * Left out, as not repeatable: session expiry (its answer counts the records it dropped, a
 * repeat drops none) and unfreeze (sent only by a driver with the unfreeze-on-recovery bug; a
 * repeat finds the shard serving). The controller's answers are compared in answer-checks.ts.
 */
import { applyGroupCommand } from '../../spec/group/state-machine.js';
import type { GroupCommand } from '../../spec/group/types.js';
import { noMigrationBugs, type MigrationBugs } from '../../spec/migration/bugs.js';
import type { SizeLimits } from '../../spec/group/size-policy.js';
import type { ClusterLayout, ServerBugs, ServerTuning, ServerView } from '../../impl/node/api.js';
import { resolveTuning } from '../../impl/node/tuning.js';
import { decodeFrame } from '../../impl/node/wire.js';
import type { NetworkEvent } from '../../impl/sim/simulated-network.js';
import { canonicalText } from '../conform/canonical.js';
import { sameValue } from '../conform/same-value.js';
import type { Violation } from './safety-monitor.js';

const checkName = 'ReplyMatchesSpec';
const notRepeatable: readonly GroupCommand['type'][] = ['expire-sessions', 'unfreeze'];

export interface ReplySpec {
  readonly bugs: MigrationBugs;
  readonly limits: SizeLimits;
}

/** The check for a cluster of `layout` whose servers run with `bugs` and `tuning`. */
export function groupReplies(
  layout: ClusterLayout, bugs: ServerBugs | undefined, tuning: Partial<ServerTuning>,
  viewOf: (server: string) => ServerView | null,
): GroupReplies {
  const groupOf = new Map<string, readonly string[]>();
  for (const servers of Object.values(layout.groups)) {
    for (const server of servers) groupOf.set(server, servers);
  }
  const spec = {
    bugs: { ...noMigrationBugs, ...bugs?.migration },
    limits: { maxValueBytes: resolveTuning(tuning).maxValueBytes },
  };
  return new GroupReplies(groupOf, spec, viewOf);
}

export class GroupReplies {
  /**
   * `${requester}/${server}/${frame id}` -> the commands asked under it. A requester that
   * restarts numbers its frames from 1 again, and the simulated network hands a reply to the
   * old process to the new one, so one key may stand for several requests.
   */
  private readonly asked = new Map<string, GroupCommand[]>();

  constructor(
    /** Each group server's name -> its group's servers (its Raft peers and itself). */
    private readonly groupOf: ReadonlyMap<string, readonly string[]>,
    private readonly spec: ReplySpec,
    private readonly viewOf: (server: string) => ServerView | null,
  ) {}

  /** A request delivered to a group server from outside its group is noted. */
  delivered(event: NetworkEvent): void {
    if (event.kind !== 'deliver' || !this.fromOutside(event.from, event.to)) return;
    const frame = decodeFrame(event.frame);
    if (frame?.kind !== 'request') return;
    const { body } = frame;
    const command: GroupCommand | null = body.type === 'kv'
      ? { type: 'client', request: body.request }
      : body.type === 'group' ? body.command : null;
    if (command === null || notRepeatable.includes(command.type)) return;
    const key = `${event.from}/${event.to}/${frame.id}`;
    const asked = this.asked.get(key) ?? [];
    if (!asked.some((earlier) => sameValue(earlier, command))) asked.push(command);
    this.asked.set(key, asked);
  }

  /** A group server's answer to outside its group, compared as it leaves. */
  sent(event: NetworkEvent): Violation | null {
    if (event.kind !== 'send' || !this.fromOutside(event.to, event.from)) return null;
    const frame = decodeFrame(event.frame);
    if (frame?.kind !== 'reply' || frame.body.type !== 'group-result') return null;
    const asked = this.asked.get(`${event.to}/${event.from}/${frame.id}`);
    const view = this.viewOf(event.from);
    if (asked === undefined || view?.kind !== 'group') return null;
    const { bugs, limits } = this.spec;
    const answered = frame.body.result;
    const answers = asked.map((command) =>
      applyGroupCommand(view.state, command, bugs, limits).result);
    if (answers.some((answer) => sameValue(answer, answered))) return null;
    return {
      invariant: checkName,
      detail: `${event.from} answered ${event.to}'s ${describe(asked.at(-1)!)} with ` +
        `${canonicalText(answered)} at applied index ${view.appliedIndex}, where the spec ` +
        `answers ${canonicalText(answers.at(-1))}`,
    };
  }

  private fromOutside(from: string, server: string): boolean {
    const group = this.groupOf.get(server);
    return group !== undefined && !group.includes(from);
  }
}

function describe(command: GroupCommand): string {
  if (command.type !== 'client') return `${command.type} request`;
  const { op, key, client, seq } = command.request;
  return `${op} ${JSON.stringify(key)} (client ${client}, seq ${seq})`;
}
