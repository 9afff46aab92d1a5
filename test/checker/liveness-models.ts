// Small models for the liveness tests, declared with defineModel (each a few lines).
import { choice, defineModel, integer, type ModelSpec } from '../../checker/define-model.js';

type Phase = 'copying' | 'asking' | 'refused' | 'published';
interface Recovery {
  readonly phase: Phase;
  readonly sourceDeleted: boolean;
}
type RecoveryAction = 'Delete' | 'Ask' | 'Retry';

/**
 * A recovering migration driver (issue 10's recovery-needs-source-after-delete, in
 * miniature): after the source deletes its copy, the wedging driver keeps asking it for the
 * image, is refused and retries forever; the correct one publishes from the receipt.
 */
export const recoveryDefinition = defineModel({
  name: 'recovery',
  description: 'a driver that asks a deleted source forever (liveness test)',
  params: {
    wedge: choice({ description: 'ask the source', default: 'yes', choices: ['yes', 'no'] }),
  },
  create: ({ wedge }): ModelSpec<Recovery, RecoveryAction> => ({
    initialStates: (): Recovery[] => [{ phase: 'copying', sourceDeleted: false }],
    actions: (): RecoveryAction[] => ['Delete', 'Ask', 'Retry'],
    next: (state: Recovery, action: RecoveryAction): Recovery | null => {
      switch (action) {
        case 'Delete':
          return state.phase === 'copying' ? { phase: 'asking', sourceDeleted: true } : null;
        case 'Ask':
          if (state.phase !== 'asking') return null;
          return { ...state, phase: wedge === 'yes' ? 'refused' : 'published' };
        case 'Retry':
          return state.phase === 'refused' ? { ...state, phase: 'asking' } : null;
      }
    },
    invariants: { TypeOK: (state: Recovery) => typeof state.sourceDeleted === 'boolean' },
    properties: [
      {
        name: 'EventuallyPublished',
        kind: 'eventually',
        holds: (state) => state.phase === 'published',
      },
    ],
    fairness: { weakLabelPrefixes: [''] },
  }),
});

interface Mailbox {
  readonly pending: readonly boolean[];
}
type MailAction =
  | { readonly type: 'Deliver'; readonly message: number }
  | { readonly type: 'Resend' };

/**
 * Two messages; message 1 can be resent after delivery, message 0 cannot. Delivering and
 * resending message 1 forever starves message 0: under per-message weak fairness
 * ("Deliver(0)" its own class) that cycle is unfair, under per-family fairness it is fair.
 */
export const mailboxDefinition = defineModel({
  name: 'mailbox',
  description: 'per-message weak fairness (liveness test)',
  params: {
    fairness: choice({
      description: 'weakly fair classes',
      default: 'per-message',
      choices: ['per-message', 'per-family', 'none'],
    }),
  },
  create: ({ fairness }): ModelSpec<Mailbox, MailAction> => ({
    initialStates: (): Mailbox[] => [{ pending: [true, true] }],
    actions: (): MailAction[] => [
      { type: 'Deliver', message: 0 },
      { type: 'Deliver', message: 1 },
      { type: 'Resend' },
    ],
    next: (state: Mailbox, action: MailAction): Mailbox | null => {
      if (action.type === 'Resend') {
        return state.pending[1] ? null : { pending: [state.pending[0]!, true] };
      }
      if (!state.pending[action.message]) return null;
      const pending = state.pending.slice();
      pending[action.message] = false;
      return { pending };
    },
    invariants: {},
    properties: [
      { name: 'FirstDelivered', kind: 'eventually', holds: (state) => !state.pending[0] },
    ],
    fairness: {
      weakClass: (action: MailAction) =>
        fairness === 'none'
          ? null
          : fairness === 'per-family' || action.type === 'Resend'
            ? action.type
            : `Deliver(${action.message})`,
    },
  }),
});

interface Light {
  readonly light: number;
  readonly crossed: boolean;
}

/**
 * A light that cycles red -> green -> yellow -> red; `Cross` is enabled only on green.
 * Weak fairness does not force it (it is not continuously enabled): the cycle is a
 * counterexample of `eventually crossed`, as in TLA+ (strong fairness would force it).
 */
export const crossingDefinition = defineModel({
  name: 'crossing',
  description: 'an intermittently enabled action under weak fairness (liveness test)',
  params: { lights: integer({ description: 'light colours', default: 3, min: 2, max: 5 }) },
  create: ({ lights }): ModelSpec<Light, 'Change' | 'Cross'> => ({
    initialStates: () => [{ light: 0, crossed: false }],
    actions: () => ['Change', 'Cross'] as const,
    next: (state, action) => {
      if (action === 'Change') return { ...state, light: (state.light + 1) % lights };
      return state.light === 1 && !state.crossed ? { ...state, crossed: true } : null;
    },
    invariants: {},
    properties: [
      { name: 'EventuallyCrossed', kind: 'eventually', holds: (state) => state.crossed },
    ],
    fairness: { weakLabelPrefixes: ['Change', 'Cross'] },
  }),
});
