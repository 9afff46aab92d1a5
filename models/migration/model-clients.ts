/**
 * The `migration` model's clients: each runs spec/client's `stepClient` (the step impl/clerk
 * runs) on a fixed script of requests, and the model performs its effects. A client's send
 * waits in its state (stage 'reply') for the model's ClientRequest action, which delivers it
 * to the group and passes back the reply, or a timeout when the reply is lost; a query is
 * answered at once with the latest recorded configuration (CONTRACT's `ctl query`: published
 * or not), at most once per step, so a client whose shard has no owner waits for ClientQuery
 * to answer its query with a newer one. A client asks only when its step does: the clerk
 * runs one operation at a time, so an application's query never meets a request in flight.
 * The next script request is taken as soon as the previous one is answered; a refusal ends
 * the client's script. The model's clients registered before it starts (session = index).
 *
 * The model groups have one server each, so wrong-leader never happens here, and a client
 * asks for a configuration after one silent round (the clerk waits two): test/client
 * covers the clerk's leader rotation.
 */
import { assert } from '../../spec/assert.js';
import { attemptRequest, initialClient, stepClient } from '../../spec/client/client-step.js';
import type { ClientInput, ClientSettings } from '../../spec/client/types.js';
import type { Config } from '../../spec/controller/types.js';
import type { ClientRequest, GroupResult } from '../../spec/group/types.js';
import {
  scriptRequest, serversOf, type ClientState, type MigrationBounds,
} from './model-state.js';

export const modelClientSettings: ClientSettings = { silentRoundsBeforeQuery: 1 };

/** A step of a client takes at most a reply, the next request, a query and its answer. */
const effectsPerStepMax = 8;

/** Client `index` with configuration `config` cached, its first request taken. */
export function startClient(bounds: MigrationBounds, index: number, config: Config): ClientState {
  const actor = initialClient(modelClientSettings, index, 0, config);
  const client: ClientState = { actor, done: 0, results: [], reusedSeq: -1 };
  return takeNext(bounds, index, client, config);
}

/** The attempt client `client` waits to send, or null (none in flight). */
export function pendingSend(client: ClientState): { gid: number; request: ClientRequest } | null {
  const outstanding = client.actor.outstanding;
  if (outstanding?.stage !== 'reply' || outstanding.target === null) return null;
  return { gid: outstanding.target.gid, request: attemptRequest(client.actor, outstanding) };
}

/** The reply to `request` reached its client (`result` null: lost; the attempt timed out). */
export function clientAnswered(
  bounds: MigrationBounds,
  client: ClientState,
  request: ClientRequest,
  gid: number,
  result: GroupResult | null,
  latest: Config,
): ClientState {
  const input: ClientInput = result === null
    ? { type: 'timeout' }
    : { type: 'reply', request, server: serversOf(gid)[0]!, reply: { type: 'result', result } };
  return runClient(bounds, request.client, client, input, latest);
}

/**
 * The controller answers the client's query that waits (its shard had no owner) with a newer
 * configuration; null when it waits for none, or the latest is the one it holds.
 */
export function clientLearns(
  bounds: MigrationBounds,
  index: number,
  client: ClientState,
  latest: Config,
): ClientState | null {
  if (client.actor.outstanding?.stage !== 'config') return null;
  if (client.actor.config !== null && client.actor.config.num >= latest.num) return null;
  return runClient(bounds, index, client, { type: 'config', config: latest }, latest);
}

/**
 * The client replaces its outstanding request by another under the same seq (a client that
 * restarted without its request); null when it has none, or already did.
 */
export function clientReusesSeq(
  bounds: MigrationBounds,
  index: number,
  client: ClientState,
): ClientState | null {
  const outstanding = client.actor.outstanding;
  if (outstanding === null || client.reusedSeq >= 0) return null;
  assert(outstanding.seq === client.done, 'the outstanding seq is the next of the script');
  const reused = scriptRequest(bounds, index, outstanding.seq, true);
  assert(reused.key === outstanding.key, 'a reused seq keeps its key');
  const replaced = { ...outstanding, op: reused.op, value: reused.value };
  const actor = { ...client.actor, outstanding: replaced };
  return { ...client, actor, reusedSeq: outstanding.seq };
}

/** Feeds `input` to the client's step and performs its effects, as the model does. */
function runClient(
  bounds: MigrationBounds,
  index: number,
  client: ClientState,
  input: ClientInput,
  latest: Config,
): ClientState {
  let current = client;
  const inputs: ClientInput[] = [input];
  let queried = false;
  for (let position = 0; position < inputs.length; position++) {
    assert(position < effectsPerStepMax, `client ${index} did not settle in one step`);
    const step = stepClient(current.actor, inputs[position]!);
    current = { ...current, actor: step.state };
    for (const effect of step.effects) {
      assert(effect.type !== 'register', 'the model clients registered before it starts');
      if (effect.type === 'query' && !queried) {
        queried = true;
        inputs.push({ type: 'config', config: latest });
      }
      if (effect.type !== 'reply') continue;
      // A refusal ends the script: the results stay one per acknowledged request.
      if (effect.outcome.status !== 'ok') continue;
      const results = [...current.results, effect.outcome.value];
      current = takeNext(bounds, index, { ...current, done: current.done + 1, results }, latest);
    }
  }
  return current;
}

/** The client takes its script's next request, if any is left. */
function takeNext(
  bounds: MigrationBounds,
  index: number,
  client: ClientState,
  latest: Config,
): ClientState {
  if (client.done >= bounds.ops) return client;
  assert(client.actor.nextSeq === client.done, `client ${index}'s seq left its script`);
  const request = scriptRequest(bounds, index, client.done);
  const { op, key, value } = request;
  const step = stepClient(client.actor, { type: 'request', op, key, value });
  const [effect] = step.effects;
  assert(step.effects.length === 1 && effect?.type !== 'reply', 'a request is routed');
  if (effect?.type !== 'query') return { ...client, actor: step.state };
  // No owner cached: the query is answered at once, as any other in a step.
  const answered = stepClient(step.state, { type: 'config', config: latest });
  return { ...client, actor: answered.state };
}
