/** The parts of `check`'s report that come from issue 22: coverage and `sometimes`. */
import { formatCoverage } from '../checker/coverage.js';
import type { SearchResult } from '../checker/search.js';

/** The `sometimes` properties an exhaustive search never saw hold: a failure. */
export function unreached(search: Pick<SearchResult, 'sometimesUnreached'>): readonly string[] {
  return search.sometimesUnreached ?? [];
}

/** One line naming the unreached properties, or none. */
export function sometimesLines(search: Pick<SearchResult, 'sometimesUnreached'>): string[] {
  const names = unreached(search);
  if (names.length === 0) return [];
  const list = names.join(', ');
  return [`sometimes ${names.length === 1 ? 'property' : 'properties'} never reached: ${list}`];
}

/** The coverage table, when the search counted it. */
export function coverageLines(search: Pick<SearchResult, 'coverage'>): string[] {
  return search.coverage ? formatCoverage(search.coverage) : [];
}

/** The JSON fields of both. */
export function reportFields(search: Pick<SearchResult, 'coverage' | 'sometimesUnreached'>) {
  return {
    ...(search.sometimesUnreached ? { sometimesUnreached: search.sometimesUnreached } : {}),
    ...(search.coverage ? { coverage: search.coverage } : {}),
  };
}
