/**
 * A persistent B+ tree: the ordered map of the runtime's groups (ordered-map.ts). An update
 * copies only the nodes on the path from the root to one leaf (O(log n) nodes of at most
 * `capacity` entries each) and shares every other node with the map it came from, so a put
 * into a shard of 100,000 keys costs about what it costs in a shard of 1,000, and a frozen
 * image is a root pointer, not a copy.
 *
 * Leaves hold the entries; a branch holds its children and, between child i and child i + 1,
 * the smallest key of child i + 1. No recursion (STYLE 7): descents keep their path in arrays
 * bounded by the tree's height.
 */
import { assert } from '../assert.js';
import { lowerBound, type MapKey, type OrderedMap } from './ordered-map.js';

interface Leaf<K, V> {
  readonly keys: readonly K[];
  readonly values: readonly V[];
}

interface Branch<K, V> {
  /** keys[i] is the smallest key under children[i + 1]. */
  readonly keys: readonly K[];
  readonly children: readonly TreeNode<K, V>[];
}

type TreeNode<K, V> = Leaf<K, V> | Branch<K, V>;

const isBranch = <K, V>(node: TreeNode<K, V>): node is Branch<K, V> => 'children' in node;

/** Entries per leaf and children per branch before a split; 32 keeps trees shallow. */
export const defaultCapacity = 32;

/** The first position whose key is above `key`: the child a branch routes `key` to. */
function upperBound<K extends MapKey>(keys: readonly K[], key: K): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keys[middle]! <= key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A node split in two halves, or kept whole: the pieces and the keys between them. */
interface Pieces<K, V> {
  readonly nodes: readonly TreeNode<K, V>[];
  readonly separators: readonly K[];
}

function splitLeaf<K, V>(keys: K[], values: V[], capacity: number): Pieces<K, V> {
  if (keys.length <= capacity) return { nodes: [{ keys, values }], separators: [] };
  const middle = keys.length >>> 1;
  const left = { keys: keys.slice(0, middle), values: values.slice(0, middle) };
  const right = { keys: keys.slice(middle), values: values.slice(middle) };
  return { nodes: [left, right], separators: [right.keys[0]!] };
}

function splitBranch<K, V>(
  keys: K[],
  children: TreeNode<K, V>[],
  capacity: number,
): Pieces<K, V> {
  if (children.length <= capacity) return { nodes: [{ keys, children }], separators: [] };
  const middle = children.length >>> 1;
  const left = { keys: keys.slice(0, middle - 1), children: children.slice(0, middle) };
  const right = { keys: keys.slice(middle), children: children.slice(middle) };
  return { nodes: [left, right], separators: [keys[middle - 1]!] };
}

export class BTreeMap<K extends MapKey, V> implements OrderedMap<K, V> {
  private constructor(
    private readonly root: TreeNode<K, V>,
    readonly size: number,
    private readonly capacity: number,
  ) {}

  static empty<K extends MapKey, V>(capacity = defaultCapacity): BTreeMap<K, V> {
    assert(Number.isInteger(capacity) && capacity >= 3, `BTreeMap: bad capacity ${capacity}`);
    return new BTreeMap<K, V>({ keys: [], values: [] }, 0, capacity);
  }

  get(key: K): V | undefined {
    let node = this.root;
    while (isBranch(node)) node = node.children[upperBound(node.keys, key)]!;
    const index = lowerBound(node.keys, key);
    return node.keys[index] === key ? node.values[index] : undefined;
  }

  set(key: K, value: V): BTreeMap<K, V> {
    const path: Branch<K, V>[] = [];
    const slots: number[] = [];
    let node = this.root;
    while (isBranch(node)) {
      const slot = upperBound(node.keys, key);
      path.push(node);
      slots.push(slot);
      node = node.children[slot]!;
    }
    const index = lowerBound(node.keys, key);
    const found = node.keys[index] === key;
    if (found && node.values[index] === value) return this;
    const keys = node.keys.slice();
    const values = node.values.slice();
    if (found) values[index] = value;
    else {
      keys.splice(index, 0, key);
      values.splice(index, 0, value);
    }
    let pieces = splitLeaf(keys, values, this.capacity);
    for (let level = path.length - 1; level >= 0; level--) {
      const parent = path[level]!;
      const slot = slots[level]!;
      const children = parent.children.slice();
      const separators = parent.keys.slice();
      children.splice(slot, 1, ...pieces.nodes);
      separators.splice(slot, 0, ...pieces.separators);
      pieces = splitBranch(separators, children, this.capacity);
    }
    const root: TreeNode<K, V> = pieces.nodes.length === 1
      ? pieces.nodes[0]!
      : { keys: pieces.separators, children: pieces.nodes };
    return new BTreeMap(root, found ? this.size : this.size + 1, this.capacity);
  }

  *entries(): IterableIterator<readonly [K, V]> {
    const nodes: TreeNode<K, V>[] = [this.root];
    const positions: number[] = [0];
    while (nodes.length > 0) {
      const top = nodes.length - 1;
      const node = nodes[top]!;
      const position = positions[top]!;
      if (!isBranch(node) || position === node.children.length) {
        if (!isBranch(node)) {
          for (let index = 0; index < node.keys.length; index++) {
            yield [node.keys[index]!, node.values[index]!];
          }
        }
        nodes.pop();
        positions.pop();
        continue;
      }
      positions[top] = position + 1;
      nodes.push(node.children[position]!);
      positions.push(0);
    }
  }

  filter(keep: (key: K, value: V) => boolean): BTreeMap<K, V> {
    let kept = this.empty();
    for (const [key, value] of this.entries()) if (keep(key, value)) kept = kept.set(key, value);
    return kept.size === this.size ? this : kept;
  }

  empty(): BTreeMap<K, V> {
    return this.size === 0 ? this : BTreeMap.empty(this.capacity);
  }

  /** The number of levels (1: the root is a leaf); for tests of the O(log n) claim. */
  height(): number {
    let levels = 1;
    for (let node = this.root; isBranch(node); node = node.children[0]!) levels++;
    return levels;
  }
}
