/**
 * Action coverage (TLC's -coverage): for each action, by the name its label starts with
 * ("Timeout" for "Timeout(s1)"), how often it was enabled in an expanded state, how often it
 * was taken to another state, and how many new distinct states it produced. An action that a
 * model lists but that is never enabled points at a model that cannot do what it claims.
 */
export interface ActionCoverage {
  readonly action: string;
  /** Expanded states in which the action was enabled (`next` returned a state). */
  enabled: number;
  /** Of those, steps to another state (not a step that changes nothing). */
  taken: number;
  /** Distinct states first reached by this action. */
  newStates: number;
}

/** "Timeout(s1)" -> "Timeout": the action's name without its arguments. */
export function actionName(label: string): string {
  const open = label.indexOf('(');
  return open < 0 ? label : label.slice(0, open);
}

export class CoverageCounter {
  private readonly byName = new Map<string, ActionCoverage>();

  /** The row of the action with this label, created at zero when first listed. */
  row(label: string): ActionCoverage {
    const name = actionName(label);
    let row = this.byName.get(name);
    if (row === undefined) {
      row = { action: name, enabled: 0, taken: 0, newStates: 0 };
      this.byName.set(name, row);
    }
    return row;
  }

  /** The rows in the order actions were first listed. */
  rows(): ActionCoverage[] {
    return [...this.byName.values()].map((row) => ({ ...row }));
  }
}

/** The table `--coverage` prints; never-enabled actions are flagged. */
export function formatCoverage(rows: readonly ActionCoverage[]): string[] {
  const width = Math.max(6, ...rows.map((row) => row.action.length));
  const lines = [`${'action'.padEnd(width)}  ${'enabled'.padStart(10)}  ` +
    `${'taken'.padStart(10)}  ${'new states'.padStart(10)}`];
  for (const row of rows) {
    const flag = row.enabled === 0 ? '  NEVER ENABLED' : '';
    lines.push(
      `${row.action.padEnd(width)}  ${String(row.enabled).padStart(10)}  ` +
        `${String(row.taken).padStart(10)}  ${String(row.newStates).padStart(10)}${flag}`,
    );
  }
  return lines;
}
