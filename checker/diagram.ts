/**
 * A trace as a sequence diagram (`shardkv replay FILE --mermaid | --html OUT`): each step
 * becomes events between participants. A message is drawn when it is delivered, from its
 * sender to its receiver (a lost one ends in a cross); everything else the environment does
 * (a timeout, a crash, a client request) is a note over the participant it happens to. A
 * model says what its steps mean through `Model.diagram`; without it every step is a note.
 */
import type { AnyModel } from './model.js';

export type DiagramEvent =
  | {
      readonly kind: 'message';
      readonly from: string;
      readonly to: string;
      readonly text: string;
      /** Dropped on the way: drawn with a cross at the receiver's end. */
      readonly lost?: boolean;
    }
  | { readonly kind: 'note'; readonly over: string; readonly text: string };

/** One step of the trace with the events it draws. */
export interface DiagramStep {
  readonly step: number;
  readonly label: string;
  readonly events: readonly DiagramEvent[];
}

/** Stands for the environment when a model draws no participant of its own. */
export const environmentParticipant = 'model';

/** The events of each step of a replayed path (states[k] follows actions[k - 1]). */
export function diagramSteps(
  model: AnyModel,
  states: readonly unknown[],
  actions: readonly unknown[],
): DiagramStep[] {
  return actions.map((action, index) => {
    const label = model.label(action);
    const events = model.diagram?.(states[index], action, states[index + 1]) ??
      [{ kind: 'note', over: environmentParticipant, text: label }];
    return { step: index + 1, label, events };
  });
}

/** The participants in a stable order: names with numbers sort by their numbers (s2 < s10). */
export function participants(steps: readonly DiagramStep[]): string[] {
  const names = new Set<string>();
  for (const { events } of steps) {
    for (const event of events) {
      if (event.kind === 'message') names.add(event.from).add(event.to);
      else names.add(event.over);
    }
  }
  return [...names].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
}

/** Mermaid reads `;` and `#` as syntax and a newline ends a statement: keep them out. */
function mermaidText(text: string): string {
  return text.replace(/[;#]/g, ',').replace(/\s+/g, ' ').trim();
}

/** Participant ids must be plain words; the readable name is the alias. */
const participantId = (index: number) => `p${index}`;

/** A Mermaid `sequenceDiagram` of the steps, with a note numbering each step. */
export function renderMermaid(steps: readonly DiagramStep[]): string {
  const order = participants(steps);
  const id = new Map(order.map((name, index) => [name, participantId(index)]));
  const lines = ['sequenceDiagram'];
  order.forEach((name) => lines.push(`  participant ${id.get(name)} as ${mermaidText(name)}`));
  for (const { step, events } of steps) {
    for (const event of events) {
      const text = mermaidText(`${step}. ${event.text}`);
      if (event.kind === 'note') {
        lines.push(`  Note over ${id.get(event.over)}: ${text}`);
      } else {
        const arrow = event.lost ? '-x' : '->>';
        lines.push(`  ${id.get(event.from)}${arrow}${id.get(event.to)}: ${text}`);
      }
    }
  }
  return lines.join('\n') + '\n';
}
