/**
 * A key's value as a node of a tree of appends: node 0 is the empty string and a node is its
 * parent's string followed by one interned value. Appending is then O(1) (hash-consed on
 * (parent, value)) instead of building a new string: the search revisits values in many orders,
 * and building and hashing each concatenation dominated the run time when values were strings.
 *
 * Two nodes may spell the same string ("a"+"bc" and "ab"+"c"); the model then calls their
 * states different, which costs the memoisation a hit, never correctness. A get compares the
 * node's spelling with its output exactly, without building the string.
 */
import { ok as assert } from 'node:assert';
import type { StringTable } from './kv-model.js';

const nodesMax = 1 << 30;
/** Room for a small history's values without regrowing. */
const initialNodes = 1 << 12;

export class ValueTree {
  private parents = new Int32Array(initialNodes);
  private values = new Int32Array(initialNodes);
  private lengths = new Float64Array(initialNodes);
  private nodes = 1;
  /** Open addressing over (parent, value): node id + 1, 0 for empty; at most half full. */
  private slots = new Int32Array(initialNodes * 2);

  constructor(private readonly strings: StringTable) {
    this.values[0] = -1;
    this.parents[0] = -1;
  }

  get size(): number {
    return this.nodes;
  }

  get bytes(): number {
    return this.parents.byteLength * 4 + this.slots.byteLength;
  }

  /** The node spelling text(node) + text(value). */
  append(node: number, value: number): number {
    const mask = this.slots.length - 1;
    let slot = slotOf(node, value) & mask;
    for (;;) {
      const stored = this.slots[slot]!;
      if (stored === 0) break;
      if (this.parents[stored - 1] === node && this.values[stored - 1] === value) return stored - 1;
      slot = (slot + 1) & mask;
    }
    const text = this.strings.text(value);
    if (text.length === 0) return node;
    const id = this.nodes;
    assert(id < nodesMax, 'the value tree has room for another node');
    if (id === this.parents.length) this.grow();
    this.parents[id] = node;
    this.values[id] = value;
    this.lengths[id] = this.lengths[node]! + text.length;
    this.nodes = id + 1;
    this.slots[slot] = id + 1;
    if (this.nodes * 2 > this.slots.length) this.rehash();
    return id;
  }

  /** Whether the node spells exactly `text`. */
  spells(node: number, text: string): boolean {
    if (this.lengths[node] !== text.length) return false;
    let end = text.length;
    let current = node;
    while (current !== 0) {
      const value = this.strings.text(this.values[current]!);
      end -= value.length;
      if (!text.startsWith(value, end)) return false;
      current = this.parents[current]!;
    }
    assert(end === 0, 'lengths add up along the path to the root');
    return true;
  }

  text(node: number): string {
    const parts: string[] = [];
    for (let current = node; current !== 0; current = this.parents[current]!) {
      parts.push(this.strings.text(this.values[current]!));
    }
    return parts.reverse().join('');
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 1; id < this.nodes; id++) {
      let slot = slotOf(this.parents[id]!, this.values[id]!) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }

  private grow(): void {
    const length = this.parents.length * 2;
    const parents = new Int32Array(length);
    const values = new Int32Array(length);
    const lengths = new Float64Array(length);
    parents.set(this.parents);
    values.set(this.values);
    lengths.set(this.lengths);
    this.parents = parents;
    this.values = values;
    this.lengths = lengths;
  }
}

function slotOf(node: number, value: number): number {
  const mixed = Math.imul(node, 0x9e3779b1) ^ Math.imul(value + 0x7f4a7c15, 0x85ebca6b);
  return mixed ^ (mixed >>> 15);
}
