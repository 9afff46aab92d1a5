/**
 * The controller group of a migration replay: three controller servers, one Raft group, whose
 * leader runs the migration driver (as the shell does). Its log commits only when the replay
 * says (`commit()`: the leader's heartbeat fires and the group's frames are delivered until
 * none is left), so a plan or a publish the driver proposes on its own waits for the trace's
 * PlanNext or Publish, as the model's controller does. A crashed leader is replaced by the
 * next server: the entries it had not committed are lost with it, as in Raft (§5.3).
 */
import type { ControllerCommand, ControllerState } from '../../spec/controller/state-machine.js';
import type { ReplyBody } from '../../impl/node/wire.js';
import type { NodeServer } from '../../impl/node/server.js';
import { RuntimeDivergence } from './adapter.js';
import type { HeldFrame } from './held-network.js';
import type { ReplayCluster } from './replay-cluster.js';

export const controllerNames = ['ctl-0', 'ctl-1', 'ctl-2'];

/**
 * Frames and heartbeats one commit may take before it is a runaway (STYLE 7: bounded). With
 * no group running (the controller model), once every group left, the driver plans and
 * publishes each configuration in turn (no move needs a group) within one commit: over 1,000
 * events after nine operations (traces/mbt/controller-driver-publish-chain).
 */
const commitEventsMax = 10_000;

export class ControllerGroup {
  /** The controller server that leads (and drives). */
  leader = controllerNames[0]!;

  constructor(private readonly cluster: ReplayCluster) {}

  /** Whether a frame travels between two controller servers (their Raft messages). */
  static isInternal(held: HeldFrame): boolean {
    return controllerNames.includes(held.from) && controllerNames.includes(held.to);
  }

  server(): NodeServer {
    return this.cluster.server(this.leader);
  }

  /** The leader's applied controller state. */
  state(): ControllerState {
    const view = this.server().view();
    if (view?.kind !== 'controller') throw new RuntimeDivergence(`${this.leader} is down`);
    return view.state;
  }

  /**
   * `from` (a client or the administrator) asks the leader `command`; the answer comes once
   * the command committed and applied, and is delivered to `from`.
   */
  async ask(from: string, command: ControllerCommand): Promise<ReplyBody> {
    const [body] = await this.askAll([{ from, command }]);
    return body!;
  }

  /**
   * The leader takes every request in order, then one commit applies them all (the log and
   * the applied state are those of asking one after the other: each request is an entry of
   * its own, in the same order); each answer is delivered to its sender.
   */
  async askAll(
    requests: readonly { readonly from: string; readonly command: ControllerCommand }[],
  ): Promise<ReplyBody[]> {
    const sent = requests.map(({ from, command }) => {
      const request = this.cluster.sendRequest(from, this.leader, { type: 'controller', command });
      this.cluster.network.deliver(request);
      return request;
    });
    await this.cluster.settle();
    await this.commit(() => sent.every((request) => this.cluster.replyTo(request) !== undefined));
    const bodies = sent.map((request) => {
      const reply = this.cluster.replyTo(request);
      if (reply?.frame.kind !== 'reply') {
        throw new RuntimeDivergence(`${this.leader} did not answer ${request.from}`);
      }
      this.cluster.network.deliver(reply);
      return reply.frame.body;
    });
    await this.cluster.settle();
    return bodies;
  }

  /** `name` times out, asks for votes and is elected; its no-op entry commits. */
  async elect(name: string): Promise<void> {
    if (!this.cluster.timers(name).fire('raft-election')) {
      throw new RuntimeDivergence(`${name} has no election timer pending`);
    }
    await this.cluster.settle();
    this.leader = name;
    await this.commit();
    if (this.server().view()?.raft.role !== 'leader') {
      throw new RuntimeDivergence(`${name} was not elected`);
    }
  }

  /**
   * Replicates and commits what the leader's log holds, and whatever that causes, until
   * nothing is left to do or `done` holds: a commit that applies a publish must not go on to
   * commit the plan the driver proposes next, which waits for the trace's PlanNext.
   */
  async commit(done: () => boolean = () => false): Promise<void> {
    for (let count = 0; count < commitEventsMax; count++) {
      if (done()) return;
      const soon = controllerNames.find((name) => this.cluster.isRunning(name) &&
        this.cluster.timers(name).isPending('raft-heartbeat-soon'));
      if (soon !== undefined) {
        this.cluster.timers(soon).fire('raft-heartbeat-soon');
      } else {
        const frame = this.cluster.network.find(ControllerGroup.isInternal);
        if (frame === undefined) return;
        this.cluster.network.deliver(frame);
      }
      await this.cluster.settle();
    }
    throw new RuntimeDivergence(`the controller group still replicates after ${commitEventsMax}`);
  }

  /**
   * The leader's process crashes (its connections go with it: its request ids start again
   * at 1 in a new process); the next server is elected and its driver recovers; the crashed
   * one restarts from its disk as a follower.
   */
  async crashLeader(): Promise<string> {
    const crashed = this.leader;
    this.cluster.crash(crashed);
    this.cluster.network.dropAll(crashed);
    const next = controllerNames[(controllerNames.indexOf(crashed) + 1) % controllerNames.length]!;
    await this.elect(next);
    await this.cluster.start(crashed);
    return `${crashed} crashed and restarted; ${next} was elected and its driver recovers`;
  }
}
