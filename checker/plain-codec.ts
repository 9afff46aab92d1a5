/**
 * A codec for any plain-data state (numbers, strings, booleans, null, arrays and objects),
 * for models that have no hand-written encoding yet. Object keys are written in sorted order,
 * so two equal states encode equally whatever order their keys were created in. Hand-written
 * codecs are several times faster; use this one to start with.
 */
import { ok as assert } from 'node:assert';
import type { StateCodec } from './model.js';
import type { WordReader, WordWriter } from './words.js';

const enum Tag {
  Null = 0,
  False = 1,
  True = 2,
  SmallInteger = 3,
  Number = 4,
  String = 5,
  Array = 6,
  Object = 7,
}

const maximumNesting = 64;

export function writePlain(value: unknown, out: WordWriter, nesting = 0): void {
  assert(nesting <= maximumNesting, 'state nested too deeply to encode');
  if (value === null || value === undefined) out.push(Tag.Null);
  else if (value === false) out.push(Tag.False);
  else if (value === true) out.push(Tag.True);
  else if (typeof value === 'number') {
    if ((value | 0) === value && !Object.is(value, -0)) {
      out.push(Tag.SmallInteger);
      out.push(value);
    } else {
      out.push(Tag.Number);
      out.pushNumber(value);
    }
  } else if (typeof value === 'string') {
    out.push(Tag.String);
    out.pushString(value);
  } else if (Array.isArray(value)) {
    out.push(Tag.Array);
    out.push(value.length);
    for (const item of value) writePlain(item, out, nesting + 1);
  } else if (typeof value === 'object') {
    const keys = Object.keys(value).sort();
    out.push(Tag.Object);
    out.push(keys.length);
    for (const key of keys) {
      out.pushString(key);
      writePlain((value as Record<string, unknown>)[key], out, nesting + 1);
    }
  } else {
    assert(false, `cannot encode a ${typeof value} in a state`);
  }
}

export function readPlain(input: WordReader, nesting = 0): unknown {
  assert(nesting <= maximumNesting, 'encoded state nested too deeply');
  const tag = input.next() as Tag;
  switch (tag) {
    case Tag.Null:
      return null;
    case Tag.False:
      return false;
    case Tag.True:
      return true;
    case Tag.SmallInteger:
      return input.next();
    case Tag.Number:
      return input.nextNumber();
    case Tag.String:
      return input.nextString();
    case Tag.Array: {
      const length = input.next();
      const array: unknown[] = [];
      for (let index = 0; index < length; index++) array.push(readPlain(input, nesting + 1));
      return array;
    }
    case Tag.Object: {
      const count = input.next();
      const object: Record<string, unknown> = {};
      for (let index = 0; index < count; index++) {
        const key = input.nextString();
        object[key] = readPlain(input, nesting + 1);
      }
      return object;
    }
    default:
      assert(false, `unknown tag ${tag as number} in an encoded state`);
  }
}

/** The plain-data codec, typed for a model's state. */
export function plainCodec<State>(): StateCodec<State> {
  return {
    encode: (state, out) => writePlain(state, out),
    decode: (input) => readPlain(input) as State,
  };
}
