/**
 * Reading a history file (CONTRACT, "Histories"): one JSON object per line,
 * `{"client","op","key","value"?,"output"?,"call","return"?,"outcome"?}`.
 *
 * Validation is strict because a checker that guesses can pass a history it misread: every
 * problem is a HistoryError naming the line, and the CLI turns it into exit 2.
 */

export type HistoryOutcome = 'ok' | 'unknown';

export interface HistoryOperation {
  /** The client as written; integers become their decimal text (1 and "1" are one client). */
  readonly client: string;
  readonly op: 'get' | 'put' | 'append';
  readonly key: string;
  readonly value: string | undefined;
  readonly output: string | undefined;
  readonly call: number;
  /** Undefined exactly when the outcome is unknown. */
  readonly return: number | undefined;
  readonly outcome: HistoryOutcome;
  /** 1-based line in the file. */
  readonly line: number;
}

export class HistoryError extends Error {
  override name = 'HistoryError';
  constructor(readonly line: number, reason: string) {
    super(`line ${line}: ${reason}`);
  }
}

const knownFields = new Set([
  'client', 'op', 'key', 'value', 'output', 'call', 'return', 'outcome',
]);

export function parseHistory(text: string): HistoryOperation[] {
  const operations: HistoryOperation[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!.trim();
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new HistoryError(index + 1, `not valid JSON (${(error as Error).message})`);
    }
    operations.push(parseOperation(parsed, index + 1));
  }
  checkClientsSequential(operations);
  return operations;
}

function parseOperation(parsed: unknown, line: number): HistoryOperation {
  const fail = (reason: string): never => {
    throw new HistoryError(line, reason);
  };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return fail('expected a JSON object');
  }
  const record = parsed as Record<string, unknown>;
  for (const field of Object.keys(record)) {
    if (!knownFields.has(field)) fail(`unknown field "${field}"`);
  }
  const { client, op, key, value, output, call, outcome = 'ok' } = record;
  const returned = record['return'];
  if (!(typeof client === 'string' || Number.isSafeInteger(client))) {
    fail('"client" must be a string or an integer');
  }
  if (op !== 'get' && op !== 'put' && op !== 'append') {
    fail('"op" must be "get", "put" or "append"');
  }
  if (typeof key !== 'string') fail('"key" must be a string');
  if (outcome !== 'ok' && outcome !== 'unknown') fail('"outcome" must be "ok" or "unknown"');
  if (typeof call !== 'number' || !Number.isFinite(call)) fail('"call" must be a finite number');
  if (op === 'get') {
    if (value !== undefined) fail('a get has no "value"');
    if (outcome === 'ok' && output === undefined) fail('a get with outcome ok needs an "output"');
  } else {
    if (typeof value !== 'string') fail(`a ${op} needs a string "value"`);
    if (output !== undefined) fail(`a ${op} has no "output" (only a get returns a value)`);
  }
  if (output !== undefined && typeof output !== 'string') fail('"output" must be a string');
  if (outcome === 'unknown') {
    if (returned !== undefined) fail('an operation with outcome unknown has no "return"');
    if (output !== undefined) fail('an operation with outcome unknown has no "output"');
  } else {
    if (typeof returned !== 'number' || !Number.isFinite(returned)) {
      fail('"return" must be a finite number (or give "outcome": "unknown")');
    }
    if ((returned as number) < (call as number)) fail('"return" is before "call"');
  }
  // Every field present (undefined when absent): one object shape keeps later passes fast.
  return {
    client: String(client),
    op: op as HistoryOperation['op'],
    key: key as string,
    value: value as string | undefined,
    output: output as string | undefined,
    call: call as number,
    return: returned as number | undefined,
    outcome: outcome as HistoryOutcome,
    line,
  };
}

/**
 * One client's operations never overlap: each starts at or after the return of the one before.
 * An operation with an unknown outcome never returned to the client, which may move on (its
 * request may still be in flight), so it bounds nothing after it.
 */
function checkClientsSequential(operations: readonly HistoryOperation[]): void {
  const byClient = new Map<string, HistoryOperation[]>();
  for (const operation of operations) {
    const list = byClient.get(operation.client);
    if (list) list.push(operation);
    else byClient.set(operation.client, [operation]);
  }
  for (const list of byClient.values()) {
    const ordered = [...list]
      .sort((left, right) => left.call - right.call || left.line - right.line);
    for (let index = 1; index < ordered.length; index++) {
      const before = ordered[index - 1]!;
      const after = ordered[index]!;
      if (before.return !== undefined && before.return > after.call) {
        const [first, second] = before.line < after.line ? [before, after] : [after, before];
        throw new HistoryError(second.line, `client ${after.client} has overlapping operations `
          + `(this one and line ${first.line}): one client's operations must not overlap`);
      }
    }
  }
}
