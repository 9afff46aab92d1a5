// Reading histories (CONTRACT "Histories"): invalid input is rejected with its line (exit 2).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HistoryError, parseHistory } from '../../checker/lincheck/history.js';

function rejection(text: string): { line: number; message: string } {
  try {
    parseHistory(text);
  } catch (error) {
    assert.instance(error, HistoryError);
    return { line: (error as HistoryError).line, message: (error as Error).message };
  }
  throw new Error('expected a HistoryError');
}

const put = '{"client":1,"op":"put","key":"k","value":"v","call":0,"return":1}';

test('a valid history: integer and string clients, blank lines, unknown outcome', () => {
  const history = parseHistory([
    put,
    '',
    '{"client":"b","op":"get","key":"k","output":"v","call":2,"return":3,"outcome":"ok"}',
    '{"client":1,"op":"append","key":"k","value":"w","call":4,"outcome":"unknown"}',
    '{"client":"b","op":"get","key":"k","call":5,"outcome":"unknown"}',
  ].join('\n') + '\n');
  assert.equal(history, [
    { client: '1', op: 'put', key: 'k', value: 'v', output: undefined, call: 0, return: 1,
      outcome: 'ok', line: 1 },
    { client: 'b', op: 'get', key: 'k', value: undefined, output: 'v', call: 2, return: 3,
      outcome: 'ok', line: 3 },
    { client: '1', op: 'append', key: 'k', value: 'w', output: undefined, call: 4,
      return: undefined, outcome: 'unknown', line: 4 },
    { client: 'b', op: 'get', key: 'k', value: undefined, output: undefined, call: 5,
      return: undefined, outcome: 'unknown', line: 5 },
  ]);
});

test('an empty file is an empty history', () => {
  assert.equal(parseHistory(''), []);
  assert.equal(parseHistory('\n\n'), []);
});

const cases: readonly (readonly [string, string, number, string])[] = [
  ['malformed JSON', `${put}\n{"client":1,`, 2, 'line 2: not valid JSON'],
  ['an array', '[1,2]', 1, 'line 1: expected a JSON object'],
  ['null', 'null', 1, 'line 1: expected a JSON object'],
  ['an unknown field', '{"client":1,"op":"get","key":"k","output":"","call":0,"return":1,"x":1}',
    1, 'line 1: unknown field "x"'],
  ['a fractional client', '{"client":1.5,"op":"get","key":"k","output":"","call":0,"return":1}',
    1, 'line 1: "client" must be a string or an integer'],
  ['a bad op', '{"client":1,"op":"cas","key":"k","call":0,"return":1}',
    1, 'line 1: "op" must be "get", "put" or "append"'],
  ['a numeric key', '{"client":1,"op":"get","key":3,"output":"","call":0,"return":1}',
    1, 'line 1: "key" must be a string'],
  ['a bad outcome', '{"client":1,"op":"get","key":"k","call":0,"outcome":"info"}',
    1, 'line 1: "outcome" must be "ok" or "unknown"'],
  ['a missing call', '{"client":1,"op":"get","key":"k","output":"","return":1}',
    1, 'line 1: "call" must be a finite number'],
  ['a get without output', `${put}\n${put.replace('"call":0,"return":1', '"call":2,"return":3')}\n`
    + '{"client":2,"op":"get","key":"k","call":0,"return":1}', 3,
  'line 3: a get with outcome ok needs an "output"'],
  ['a get with a value',
    '{"client":1,"op":"get","key":"k","value":"","output":"","call":0,"return":1}',
    1, 'line 1: a get has no "value"'],
  ['a put without value', '{"client":1,"op":"put","key":"k","call":0,"return":1}',
    1, 'line 1: a put needs a string "value"'],
  ['an append with output',
    '{"client":1,"op":"append","key":"k","value":"","output":"","call":0,"return":1}',
    1, 'line 1: a append has no "output" (only a get returns a value)'],
  ['a numeric output', '{"client":1,"op":"get","key":"k","output":7,"call":0,"return":1}',
    1, 'line 1: "output" must be a string'],
  ['unknown with a return', '{"client":1,"op":"put","key":"k","value":"","call":0,"return":1,'
    + '"outcome":"unknown"}', 1, 'line 1: an operation with outcome unknown has no "return"'],
  ['unknown with an output', '{"client":1,"op":"get","key":"k","output":"","call":0,'
    + '"outcome":"unknown"}', 1, 'line 1: an operation with outcome unknown has no "output"'],
  ['a missing return', '{"client":1,"op":"get","key":"k","output":"","call":0}',
    1, 'line 1: "return" must be a finite number (or give "outcome": "unknown")'],
  ['a return before the call', '{"client":1,"op":"get","key":"k","output":"","call":5,"return":4}',
    1, 'line 1: "return" is before "call"'],
  ['overlapping operations of one client',
    '{"client":1,"op":"put","key":"k","value":"a","call":0,"return":10}\n'
    + '{"client":2,"op":"put","key":"k","value":"b","call":1,"return":3}\n'
    + '{"client":1,"op":"get","key":"j","output":"","call":5,"return":6}', 3,
  'line 3: client 1 has overlapping operations (this one and line 1)'],
  ['overlap listed out of time order',
    '{"client":"c","op":"get","key":"k","output":"","call":5,"return":6}\n'
    + '{"client":"c","op":"put","key":"k","value":"a","call":0,"return":10}', 2,
  'line 2: client c has overlapping operations (this one and line 1)'],
];

for (const [name, text, line, message] of cases) {
  test(`rejected with its line: ${name}`, () => {
    const error = rejection(text);
    assert.is(error.line, line);
    assert.ok(error.message.startsWith(message), error.message);
  });
}

test('a client may move on after an operation with unknown outcome; touching ops are fine', () => {
  const history = parseHistory([
    '{"client":1,"op":"put","key":"k","value":"a","call":0,"outcome":"unknown"}',
    '{"client":1,"op":"get","key":"k","output":"","call":1,"return":4}',
    '{"client":1,"op":"get","key":"k","output":"","call":4,"return":4}',
  ].join('\n'));
  assert.is(history.length, 3);
});

test.run();
