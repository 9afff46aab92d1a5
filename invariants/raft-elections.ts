/**
 * ElectionSafety (Raft §5.2): at most one leader can be elected in a given term. It is about
 * history: two leaders of one term need never lead at the same moment, so the view is the
 * group's record of elections, `elected[t]`, the set (a bit mask of server ids) of the
 * servers that became leader in term t. The `raft` model keeps it as a proof-only variable;
 * the simulator's monitor and conform build it from every leader they saw during a run,
 * numbering a group's servers in the order they first saw them.
 */
export interface ElectionView {
  readonly elected: readonly number[];
}

/** The servers in a set, as ids ascending. */
function members(mask: number): number[] {
  const ids: number[] = [];
  for (let id = 0; mask >>> id !== 0; id++) if ((mask & (1 << id)) !== 0) ids.push(id);
  return ids;
}

/** The body, for one term: at most one server became leader in it. */
export function oneLeaderInTerm(mask: number): boolean {
  return (mask & (mask - 1)) === 0;
}

export function electionSafety(view: ElectionView): boolean {
  return view.elected.every(oneLeaderInTerm);
}

/** "s1 and s3 both became leader in term 1": the first term with two leaders. */
export function explainElectionSafety(
  view: ElectionView,
  serverName: (id: number) => string,
): string {
  const term = view.elected.findIndex((mask) => !oneLeaderInTerm(mask));
  if (term < 0) return 'no term has two leaders';
  const names = members(view.elected[term]!).map(serverName).join(' and ');
  return `${names} both became leader in term ${term}`;
}
