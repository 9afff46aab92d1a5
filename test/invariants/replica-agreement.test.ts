// ReplicaAgreement's controller digest (invariants/replica-agreement.ts): the sessions table
// is digested as a sum of its sessions' hashes, so key order does not count and every change
// of a session, a client or the set of sessions does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { controllerStateDigest } from '../../invariants/replica-agreement.js';
import {
  initialControllerState, type ClientSession, type ControllerState,
} from '../../spec/controller/state-machine.js';

const session = (seq: number, client: number): ClientSession =>
  ({ seq, request: `{"seq":${seq}}`, result: { type: 'registered', client } });

function withSessions(sessions: Record<string, ClientSession>): ControllerState {
  return { ...initialControllerState(10), sessions };
}

const a = session(3, 1);
const b = session(7, 2);
const c = session(1, 3);

test('the same sessions in another key order have the same digest', () => {
  assert.is(controllerStateDigest(withSessions({ p: a, q: b, r: c })),
    controllerStateDigest(withSessions({ r: c, q: b, p: a })));
});

test('a session changed, moved to another client, added or left out changes the digest', () => {
  const digests = [
    withSessions({}),
    withSessions({ 1: a, 2: b }),
    withSessions({ 1: a, 2: session(8, 2) }),
    withSessions({ 1: b, 2: a }),
    withSessions({ 1: a, 2: b, 3: c }),
    withSessions({ 1: a }),
    withSessions({ 1: a, 3: b }),
  ].map(controllerStateDigest);
  assert.is(new Set(digests).size, digests.length, digests.join(' '));
});

test('one session record under two clients is hashed with each client', () => {
  const shared = session(5, 9);
  assert.is.not(controllerStateDigest(withSessions({ 1: shared })),
    controllerStateDigest(withSessions({ 2: shared })));
  assert.is(controllerStateDigest(withSessions({ 1: shared, 2: shared })),
    controllerStateDigest(withSessions({ 2: shared, 1: shared })));
});

test.run();
