/**
 * The client of the sharded store (the MIT 6.5840 clerk, with the sessions of Raft
 * dissertation §6.3) as an actor (DESIGN §2): its state, its inputs and its effects. The
 * step is client-step.ts; the `migration` model's clients and impl/clerk both run it.
 *
 * A client has one request outstanding (a group's dedup record holds only a client's latest
 * seq), numbered (session, seq) once, and that number is kept across every retry, so a
 * retried request takes effect once. It routes a key by key2shard over its cached
 * configuration, follows leader hints, asks for a configuration on ErrWrongGroup or after
 * rounds of silence, and answers `unknown` when the deadline passes after a request left: a
 * request that may have taken effect is never reported as refused.
 */
import type { Config, Gid } from '../controller/types.js';
import type { ClientOperation, ClientRequest, GroupResult } from '../group/types.js';

export interface ClientSettings {
  /**
   * Rounds of silence (every server of the group asked, none answered) before the client
   * asks for a configuration again: the group may have left. The runtime's clerk uses 2.
   */
  readonly silentRoundsBeforeQuery: number;
}

/** Where an outstanding request stands. */
export type ClientStage =
  /** The session is being registered (the first request of a new client). */
  | 'session'
  /** A configuration was asked for: the request waits to be routed. */
  | 'config'
  /** An attempt is in flight to `target`: its reply or its timeout comes next. */
  | 'reply';

export interface Outstanding {
  readonly op: ClientOperation;
  readonly key: string;
  readonly value: string;
  /** Fixed when the request is taken: every attempt carries it. */
  readonly seq: number;
  readonly stage: ClientStage;
  /** The attempt in flight (stage 'reply'), else null. */
  readonly target: { readonly gid: Gid; readonly server: string } | null;
  /** Attempts to `target.gid` since the request was last routed. */
  readonly tries: number;
  /**
   * Some attempt was asked for: from now on the request may have taken effect. (The shell
   * takes no request whose deadline already passed, so an attempt asked for is sent.)
   */
  readonly sent: boolean;
}

export interface ClientState {
  readonly settings: ClientSettings;
  /** The session id the controller issued (register-client), or null before it did. */
  readonly session: number | null;
  /** The seq the next request takes. */
  readonly nextSeq: number;
  /** The latest configuration the client learned, or null before it learned one. */
  readonly config: Config | null;
  /**
   * gid -> the server believed to lead that group, only where it is not the group's first
   * server (the one a client tries first): equal beliefs are equal states.
   */
  readonly leaders: Readonly<Record<number, string>>;
  readonly outstanding: Outstanding | null;
}

/** What a server answered to one attempt (impl/node/wire.ts's replies to a `kv` request). */
export type ServerReply =
  | { readonly type: 'result'; readonly result: GroupResult }
  /** Not the leader (or it stopped leading before the answer): try `leader` when named. */
  | { readonly type: 'wrong-leader'; readonly leader: string | null }
  /** A definitive refusal by the server's shell: the request will not take effect. */
  | { readonly type: 'refused'; readonly error: string };

export type ClientInput =
  /**
   * The application's operation, before its deadline: the client must have none
   * outstanding.
   */
  | {
      readonly type: 'request';
      readonly op: ClientOperation;
      readonly key: string;
      readonly value: string;
    }
  | { readonly type: 'registered'; readonly session: number }
  /** The registration was refused: the request did not leave. */
  | { readonly type: 'register-failed'; readonly error: string }
  /** The answer to a query (null: the query brought none); taken only when newer. */
  | { readonly type: 'config'; readonly config: Config | null }
  /** `request` names what the reply answers: a reply to another request is ignored. */
  | {
      readonly type: 'reply';
      readonly request: ClientRequest;
      readonly server: string;
      readonly reply: ServerReply;
    }
  /** The attempt in flight went unanswered for the attempt timeout. */
  | { readonly type: 'timeout' }
  /** The application's deadline for the outstanding request passed. */
  | { readonly type: 'deadline' };

export type ClientOutcome =
  /** `value`: what a get read; '' for a put or append, which answer only that they applied. */
  | { readonly status: 'ok'; readonly value: string }
  /** The request may or may not have taken effect: it left and no answer came. */
  | { readonly status: 'unknown'; readonly error: string }
  /** A definitive refusal: the request did not and will not take effect. */
  | { readonly status: 'refused'; readonly error: string };

/**
 * Effects, performed in order. At most one of register / query / send per step: the client
 * waits for that one's answer (an input) before it asks anything else.
 */
export type ClientEffect =
  | { readonly type: 'register' }
  /** Ask the controller for the latest configuration, after a retry pause if `pause`. */
  | { readonly type: 'query'; readonly pause: boolean }
  /**
   * One attempt: `request` to `server` of group `gid`, after a retry pause if `pause`;
   * `retry` attempts went before it since the request was routed (attempt-timeout.ts).
   */
  | {
      readonly type: 'send';
      readonly gid: Gid;
      readonly server: string;
      readonly request: ClientRequest;
      readonly pause: boolean;
      readonly retry: number;
    }
  | { readonly type: 'reply'; readonly outcome: ClientOutcome };

export interface ClientStep {
  readonly state: ClientState;
  readonly effects: readonly ClientEffect[];
}
