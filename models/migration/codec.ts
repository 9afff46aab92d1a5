/**
 * A hand-written codec for the `migration` model's states: several times faster than the
 * plain codec, which writes every object key. Each field is written in a fixed order; null is
 * the word -1 where a non-negative number would stand. decode(encode(s)) equals s exactly
 * (configuration server lists are rebuilt by serversOf, as the model builds them).
 */
import type { StateCodec } from '../../checker/model.js';
import type { WordReader, WordWriter } from '../../checker/words.js';
import type { Config, Gid, Intent } from '../../spec/controller/types.js';
import { assert } from '../../spec/assert.js';
import { SortedArrayMap, type OrderedMap } from '../../spec/group/ordered-map.js';
import type {
  ClientOperation,
  DedupMap,
  DedupRecord,
  Digest,
  GroupCommand,
  Identity,
  Image,
  ImageDelta,
  ImagePart,
  KvMap,
  PartsManifest,
  PrecopyBase,
  Receipt,
  ShardFacts,
  ShardPhase,
  ShardState,
  StagedImage,
} from '../../spec/group/types.js';
import type { MigrationBounds, MigrationState, ClientState, InFlight } from './model-state.js';
import { initialState, scriptRequest, serversOf } from './model-state.js';
import type { ShardProgress } from '../../spec/migration/types.js';
import { initialClient } from '../../spec/client/client-step.js';
import type { ClientStage } from '../../spec/client/types.js';
import { modelClientSettings } from './model-clients.js';

const none = -1;
const phases: readonly ShardPhase[] = ['serving', 'frozen', 'absent'];
const steps: readonly ShardProgress['step'][] =
  ['recover', 'freeze', 'install', 'delete', 'done', 'stage', 'precopy'];
const operations: readonly ClientOperation[] = ['get', 'put', 'append'];
const commandTypes: readonly GroupCommand['type'][] = [
  'client', 'freeze', 'install', 'delete', 'unfreeze', 'query-shard', 'expire-sessions',
  'stage-part', 'install-parts', 'fetch-part', 'precopy',
];

function writeIdentity(identity: Identity | null, out: WordWriter): void {
  if (identity === null) {
    out.push(none);
    return;
  }
  out.push(identity.shard);
  out.push(identity.epoch);
  out.push(identity.src);
  out.push(identity.dst);
}

function readIdentity(input: WordReader): Identity | null {
  const shard = input.next();
  if (shard === none) return null;
  return { shard, epoch: input.next(), src: input.next(), dst: input.next() };
}

/**
 * A 64-bit digest (16 hexadecimal digits) is written as two words, not as a 16-character
 * string (9 words). Converting costs more than the rest of a state's encoding, and a model
 * run meets only a few distinct images, so conversions are remembered, both ways, up to a
 * bound. The words depend on the digest alone, so every worker encodes a state alike.
 */
const digestMemoLimit = 4096;
const wordsOfDigest = new Map<Digest, readonly [number, number]>();
const digestOfWords = new Map<number, Map<number, Digest>>();

function writeDigest(digest: Digest, out: WordWriter): void {
  let words = wordsOfDigest.get(digest);
  if (words === undefined) {
    if (wordsOfDigest.size >= digestMemoLimit) wordsOfDigest.clear();
    words = [parseInt(digest.slice(0, 8), 16) | 0, parseInt(digest.slice(8), 16) | 0];
    wordsOfDigest.set(digest, words);
  }
  out.push(words[0]);
  out.push(words[1]);
}

const hexWord = (word: number) => (word >>> 0).toString(16).padStart(8, '0');

function readDigest(input: WordReader): Digest {
  const high = input.next();
  const low = input.next();
  let lows = digestOfWords.get(high);
  if (lows === undefined) {
    if (digestOfWords.size >= digestMemoLimit) digestOfWords.clear();
    lows = new Map();
    digestOfWords.set(high, lows);
  }
  let digest = lows.get(low);
  if (digest === undefined) {
    digest = hexWord(high) + hexWord(low);
    lows.set(low, digest);
  }
  return digest;
}

function writeReceipt(receipt: Receipt | null, out: WordWriter): void {
  writeIdentity(receipt === null ? null : receipt.identity, out);
  if (receipt !== null) writeDigest(receipt.digest, out);
}

function readReceipt(input: WordReader): Receipt | null {
  const identity = readIdentity(input);
  return identity === null ? null : { identity, digest: readDigest(input) };
}

/** The model's maps are sorted arrays: the codec reads their arrays, not an iterator. */
function sortedArrays<K extends string | number, V>(map: OrderedMap<K, V>) {
  assert(map instanceof SortedArrayMap, 'the migration model keeps its maps as sorted arrays');
  return map as SortedArrayMap<K, V>;
}

function writeKv(kv: KvMap, out: WordWriter): void {
  const { keys, values } = sortedArrays(kv);
  out.push(keys.length);
  for (let index = 0; index < keys.length; index++) {
    out.pushString(keys[index]!);
    out.pushString(values[index]!);
  }
}

function readKv(input: WordReader): KvMap {
  const keys: string[] = [];
  const values: string[] = [];
  for (let count = input.next(); count > 0; count--) {
    keys.push(input.nextString());
    values.push(input.nextString());
  }
  return SortedArrayMap.fromSorted(keys, values);
}

function writeDedup(dedup: DedupMap, out: WordWriter): void {
  const records = sortedArrays(dedup).values;
  out.push(records.length);
  for (const record of records) {
    out.push(record.client);
    out.push(record.seq);
    out.push(record.digest | 0);
    out.push(record.result === 'ok' ? 0 : 1);
  }
}

function readDedup(input: WordReader): DedupMap {
  const clients: number[] = [];
  const records: DedupRecord[] = [];
  for (let count = input.next(); count > 0; count--) {
    const client = input.next();
    const seq = input.next();
    const digest = input.next() >>> 0;
    clients.push(client);
    const result = input.next() === 0 ? 'ok' : 'value-too-large';
    records.push({ client, seq, digest, result });
  }
  return SortedArrayMap.fromSorted(clients, records);
}

function writeImage(image: Image | null, out: WordWriter): void {
  if (image === null) {
    out.push(none);
    return;
  }
  writeKv(image.kv, out);
  writeDedup(image.dedup, out);
  out.push(image.sessionFloor);
  writeDigest(image.digest, out);
}

function readImage(input: WordReader): Image | null {
  if (input.words[input.position] === none) {
    input.next();
    return null;
  }
  const kv = readKv(input);
  const dedup = readDedup(input);
  const sessionFloor = input.next();
  return { kv, dedup, sessionFloor, digest: readDigest(input) };
}

function writeManifest(manifest: PartsManifest, out: WordWriter): void {
  writeDigest(manifest.digest, out);
  out.push(manifest.sessionFloor);
  out.push(manifest.count);
  out.push(manifest.precopy === true ? 1 : 0);
}

function readManifest(input: WordReader): PartsManifest {
  const digest = readDigest(input);
  const sessionFloor = input.next();
  const count = input.next();
  return input.next() === 1 ? { digest, sessionFloor, count, precopy: true }
    : { digest, sessionFloor, count };
}

/** A manifest or none (a precopy answer with nothing to pre-copy, a freeze's own). */
function writeOptionalManifest(manifest: PartsManifest | null | undefined, out: WordWriter) {
  if (manifest === null || manifest === undefined) out.push(none);
  else {
    out.push(1);
    writeManifest(manifest, out);
  }
}

function readOptionalManifest(input: WordReader): PartsManifest | null {
  return input.next() === none ? null : readManifest(input);
}

function writeDelta(delta: ImageDelta | undefined, out: WordWriter): void {
  if (delta === undefined) {
    out.push(none);
    return;
  }
  out.push(1);
  writeDigest(delta.digest, out);
  out.push(delta.sessionFloor);
  writeKv(delta.kv, out);
  writeDedup(delta.dedup, out);
  out.push(delta.kvRemoved.length);
  for (const key of delta.kvRemoved) out.pushString(key);
  out.push(delta.dedupRemoved.length);
  for (const client of delta.dedupRemoved) out.push(client);
}

/** A delta, or {} when none (the key is left out). */
function readDelta(input: WordReader): { delta?: ImageDelta } {
  if (input.next() === none) return {};
  const digest = readDigest(input);
  const sessionFloor = input.next();
  const kv = readKv(input);
  const dedup = readDedup(input);
  const kvRemoved: string[] = [];
  for (let count = input.next(); count > 0; count--) kvRemoved.push(input.nextString());
  const dedupRemoved: number[] = [];
  for (let count = input.next(); count > 0; count--) dedupRemoved.push(input.next());
  return { delta: { digest, sessionFloor, kv, dedup, kvRemoved, dedupRemoved } };
}

function writePrecopy(base: PrecopyBase | undefined, out: WordWriter): void {
  writeIdentity(base === undefined ? null : base.identity, out);
  if (base === undefined) return;
  writeManifest(base.manifest, out);
  writePart(base, out);
}

function readPrecopy(input: WordReader): PrecopyBase | null {
  const identity = readIdentity(input);
  if (identity === null) return null;
  const manifest = readManifest(input);
  return { identity, manifest, ...readPart(input) };
}

function writePart(part: ImagePart, out: WordWriter): void {
  writeKv(part.kv, out);
  writeDedup(part.dedup, out);
}

function readPart(input: WordReader): ImagePart {
  const kv = readKv(input);
  return { kv, dedup: readDedup(input) };
}

/** A part the driver holds, or none (not fetched yet, or acknowledged). */
function writeHeldPart(part: ImagePart | null, out: WordWriter): void {
  if (part === null) out.push(none);
  else writePart(part, out);
}

function readHeldPart(input: WordReader): ImagePart | null {
  if (input.words[input.position] !== none) return readPart(input);
  input.next();
  return null;
}

function writeStaged(staged: StagedImage | null, out: WordWriter): void {
  writeIdentity(staged === null ? null : staged.identity, out);
  if (staged === null) return;
  writeManifest(staged.manifest, out);
  out.push(staged.parts);
  writePart(staged, out);
}

function readStaged(input: WordReader): StagedImage | null {
  const identity = readIdentity(input);
  if (identity === null) return null;
  const manifest = readManifest(input);
  const parts = input.next();
  return { identity, manifest, parts, ...readPart(input) };
}

function writeShard(record: ShardState, out: WordWriter): void {
  out.push(phases.indexOf(record.phase));
  writeIdentity(record.identity, out);
  writeKv(record.kv, out);
  writeDedup(record.dedup, out);
  if (record.frozenDigest === null) out.push(none);
  else {
    out.push(1);
    writeDigest(record.frozenDigest, out);
  }
  writeReceipt(record.receipt, out);
  writeIdentity(record.tombstone, out);
  writeStaged(record.staged, out);
  writePrecopy(record.precopy, out);
}

function readShard(input: WordReader): ShardState {
  const phase = phases[input.next()]!;
  const identity = readIdentity(input);
  const kv = readKv(input);
  const dedup = readDedup(input);
  const frozenDigest = input.next() === none ? null : readDigest(input);
  const receipt = readReceipt(input);
  const tombstone = readIdentity(input);
  const staged = readStaged(input);
  const precopy = readPrecopy(input);
  const record = { phase, identity, kv, dedup, frozenDigest, receipt, tombstone, staged };
  return precopy === null ? record : { ...record, precopy };
}

function writeCommand(command: GroupCommand, out: WordWriter): void {
  out.push(commandTypes.indexOf(command.type));
  switch (command.type) {
    case 'client': {
      const request = command.request;
      out.push(request.client);
      out.push(request.seq);
      out.push(operations.indexOf(request.op));
      out.pushString(request.key);
      out.pushString(request.value);
      return;
    }
    case 'install':
      writeIdentity(command.identity, out);
      writeImage(command.image, out);
      return;
    case 'delete':
      writeIdentity(command.identity, out);
      writeReceipt(command.receipt, out);
      return;
    case 'stage-part':
      writeIdentity(command.identity, out);
      writeManifest(command.manifest, out);
      out.push(command.index);
      writePart(command.part, out);
      return;
    case 'install-parts':
      writeIdentity(command.identity, out);
      writeManifest(command.manifest, out);
      writeDelta(command.delta, out);
      return;
    case 'fetch-part':
      writeIdentity(command.identity, out);
      writeDigest(command.digest, out);
      out.push(command.index);
      return;
    case 'freeze':
    case 'unfreeze':
    case 'precopy':
      writeIdentity(command.identity, out);
      return;
    case 'query-shard':
      out.push(command.shard);
      return;
    case 'expire-sessions':
      out.push(command.below);
  }
}

function readCommand(input: WordReader): GroupCommand {
  const type = commandTypes[input.next()]!;
  switch (type) {
    case 'client': {
      const client = input.next();
      const seq = input.next();
      const op = operations[input.next()]!;
      const key = input.nextString();
      return { type, request: { client, seq, op, key, value: input.nextString() } };
    }
    case 'install': {
      const identity = readIdentity(input)!;
      return { type, identity, image: readImage(input) };
    }
    case 'delete': {
      const identity = readIdentity(input)!;
      return { type, identity, receipt: readReceipt(input) };
    }
    case 'stage-part': {
      const identity = readIdentity(input)!;
      const manifest = readManifest(input);
      const index = input.next();
      return { type, identity, manifest, index, part: readPart(input) };
    }
    case 'install-parts': {
      const identity = readIdentity(input)!;
      const manifest = readManifest(input);
      return { type, identity, manifest, ...readDelta(input) };
    }
    case 'fetch-part': {
      const identity = readIdentity(input)!;
      const digest = readDigest(input);
      return { type, identity, digest, index: input.next() };
    }
    case 'freeze':
    case 'unfreeze':
    case 'precopy':
      return { type, identity: readIdentity(input)! };
    case 'query-shard':
      return { type, shard: input.next() };
    case 'expire-sessions':
      return { type, below: input.next() };
  }
}

/** The shards, then the members as a bit set (bit gid - 1): the model's gids are 1..groups. */
function writeConfig(config: Config, groupCount: number, out: WordWriter): void {
  for (const gid of config.shards) out.push(gid);
  let members = 0;
  for (let gid = 1; gid <= groupCount; gid++) {
    if (config.groups[gid] !== undefined) members |= 1 << (gid - 1);
  }
  out.push(members);
}

function readConfig(input: WordReader, num: number, bounds: MigrationBounds): Config {
  const shards: Gid[] = [];
  for (let shard = 0; shard < bounds.shards; shard++) shards.push(input.next());
  const groups: Record<number, readonly string[]> = {};
  const members = input.next();
  for (let gid = 1; gid <= bounds.groups; gid++) {
    if ((members & (1 << (gid - 1))) !== 0) groups[gid] = serversOf(gid);
  }
  return { num, shards, groups };
}

/** The facts a group reported to a recovering driver, or none yet. */
function writeFacts(facts: ShardFacts | null, out: WordWriter): void {
  if (facts === null) {
    out.push(none);
    return;
  }
  out.push(phases.indexOf(facts.phase));
  writeIdentity(facts.identity, out);
  writeReceipt(facts.receipt, out);
  writeIdentity(facts.tombstone, out);
  out.push(facts.large === true ? 1 : 0);
}

function readFacts(input: WordReader): ShardFacts | null {
  const phase = input.next();
  if (phase === none) return null;
  const identity = readIdentity(input);
  const receipt = readReceipt(input);
  const facts = { phase: phases[phase]!, identity, receipt, tombstone: readIdentity(input) };
  return input.next() === 1 ? { ...facts, large: true } : facts;
}

function writeProgress(progress: ShardProgress, out: WordWriter): void {
  out.push(steps.indexOf(progress.step));
  if (progress.step === 'install') writeImage(progress.image, out);
  if (progress.step === 'delete') writeReceipt(progress.receipt, out);
  if (progress.step === 'freeze') writeOptionalManifest(progress.precopied, out);
  if (progress.step === 'stage') {
    writeManifest(progress.manifest, out);
    out.push(progress.acknowledged);
    out.push(progress.parts.length);
    for (const part of progress.parts) writeHeldPart(part, out);
    writeDelta(progress.delta, out);
  }
  if (progress.step === 'recover') {
    writeFacts(progress.srcFacts, out);
    writeFacts(progress.dstFacts, out);
  }
}

function readProgress(input: WordReader): ShardProgress {
  const step = steps[input.next()]!;
  if (step === 'install') return { step, image: readImage(input) };
  if (step === 'delete') return { step, receipt: readReceipt(input)! };
  if (step === 'stage') {
    const manifest = readManifest(input);
    const acknowledged = input.next();
    const parts: (ImagePart | null)[] = [];
    for (let count = input.next(); count > 0; count--) parts.push(readHeldPart(input));
    return { step, manifest, parts, acknowledged, ...readDelta(input) };
  }
  if (step === 'freeze') {
    const precopied = readOptionalManifest(input);
    return precopied === null ? { step } : { step, precopied };
  }
  if (step === 'recover') {
    const srcFacts = readFacts(input);
    return { step, srcFacts, dstFacts: readFacts(input) };
  }
  return { step } as ShardProgress;
}

function writeStrings(values: readonly (string | null)[], out: WordWriter): void {
  for (const value of values) {
    if (value === null) out.push(none);
    else out.pushString(value);
  }
}

function readStrings(input: WordReader, count: number): (string | null)[] {
  const values: (string | null)[] = [];
  for (let index = 0; index < count; index++) {
    if (input.words[input.position] === none) {
      input.next();
      values.push(null);
    } else {
      values.push(input.nextString());
    }
  }
  return values;
}

function writeIntent(next: Intent | null, out: WordWriter): void {
  if (next === null) {
    out.push(none);
    return;
  }
  out.push(next.num);
  out.push(next.moves.length);
  for (const identity of next.moves) writeIdentity(identity, out);
}

function readIntent(input: WordReader): Intent | null {
  const num = input.next();
  if (num === none) return null;
  const moves: Identity[] = [];
  for (let count = input.next(); count > 0; count--) moves.push(readIdentity(input)!);
  return { num, moves };
}

const stages: readonly ClientStage[] = ['session', 'config', 'reply'];

/** A model client: its actor's session is its index and its settings the model's. */
function writeClient(
  bounds: MigrationBounds,
  client: ClientState,
  index: number,
  out: WordWriter,
): void {
  const actor = client.actor;
  assert(actor.session === index && actor.config !== null, `client ${index} has no session`);
  out.push(client.done);
  out.push(client.reusedSeq);
  writeStrings(client.results, out);
  out.push(actor.nextSeq);
  out.push(actor.config.num);
  const leaders = Object.entries(actor.leaders);
  out.push(leaders.length);
  for (const [gid, server] of leaders) {
    out.push(Number(gid));
    out.push(serversOf(Number(gid)).indexOf(server));
  }
  const outstanding = actor.outstanding;
  if (outstanding === null) {
    out.push(none);
    return;
  }
  // op, key and value are the script's request number `done` (reused or not): not written.
  const scripted = scriptRequest(bounds, index, client.done, client.reusedSeq === client.done);
  assert(scripted.op === outstanding.op && scripted.key === outstanding.key &&
    scripted.value === outstanding.value, `client ${index}'s request is not its script's`);
  out.push(outstanding.seq);
  const target = outstanding.target;
  // stage, sent and tries in one word; tries stays below the model's one silent round.
  assert(outstanding.tries < 1 << 8, `client ${index} tried ${outstanding.tries} times`);
  out.push(stages.indexOf(outstanding.stage) | (outstanding.sent ? 4 : 0) |
    (outstanding.tries << 3));
  out.push(target === null ? none : target.gid);
  if (target !== null) out.push(serversOf(target.gid).indexOf(target.server));
}

function readClient(
  input: WordReader,
  bounds: MigrationBounds,
  index: number,
  configs: readonly Config[],
): ClientState {
  const done = input.next();
  const reusedSeq = input.next();
  const results = readStrings(input, done) as string[];
  const nextSeq = input.next();
  const config = configs[input.next()]!;
  const leaders: Record<number, string> = {};
  for (let count = input.next(); count > 0; count--) {
    const gid = input.next();
    leaders[gid] = serversOf(gid)[input.next()]!;
  }
  const actor = { ...initialClient(modelClientSettings, index, nextSeq, config), leaders };
  const seq = input.next();
  if (seq === none) return { actor, done, results, reusedSeq };
  const { op, key, value } = scriptRequest(bounds, index, done, reusedSeq === done);
  const word = input.next();
  const stage = stages[word & 3]!;
  const gid = input.next();
  const target = gid === none ? null : { gid, server: serversOf(gid)[input.next()]! };
  const tries = word >> 3;
  const sent = (word & 4) !== 0;
  const outstanding = { op, key, value, seq, stage, target, tries, sent };
  return { actor: { ...actor, outstanding }, done, results, reusedSeq };
}

/** Configurations 0 and 1: every state of the model starts with the same two. */
const fixedConfigs = 2;

/** The controller and the driver's beliefs. */
function writeControllerAndDriver(state: MigrationState, groupCount: number, out: WordWriter) {
  const controller = state.controller;
  out.push(controller.configs.length);
  // Configurations 0 and 1 are the same in every state (the initial join of g1): skipped.
  for (let num = fixedConfigs; num < controller.configs.length; num++) {
    writeConfig(controller.configs[num]!, groupCount, out);
  }
  out.push(controller.current);
  writeIntent(controller.next, out);
  // The beliefs are the step function's: stepDriver keeps them about `next`, but the codec
  // does not rely on it (a driver that kept stale beliefs must show as such).
  out.push(state.driver.num ?? none);
  out.push(state.driver.progress.length);
  for (const progress of state.driver.progress) writeProgress(progress, out);
}

function readControllerAndDriver(
  input: WordReader,
  bounds: MigrationBounds,
  initial: MigrationState,
): Pick<MigrationState, 'controller' | 'driver'> {
  const configs: Config[] = [];
  const configCount = input.next();
  for (let num = 0; num < configCount; num++) {
    const fixed = num < fixedConfigs ? initial.controller.configs[num] : undefined;
    configs.push(fixed ?? readConfig(input, num, bounds));
  }
  const current = input.next();
  const next = readIntent(input);
  const num = input.next();
  const progress: ShardProgress[] = [];
  for (let count = input.next(); count > 0; count--) progress.push(readProgress(input));
  return {
    // The model's clients registered before it starts: nextClient is always `clients`.
    controller: { configs, sessions: {}, current, next, nextClient: bounds.clients },
    driver: { num: num === none ? null : num, progress },
  };
}

export function migrationCodec(bounds: MigrationBounds): StateCodec<MigrationState> {
  const initial = initialState(bounds);
  const requests = bounds.clients * bounds.ops;
  const encode = (state: MigrationState, out: WordWriter): void => {
    writeControllerAndDriver(state, bounds.groups, out);
    for (const group of state.groups) {
      out.push(group.sessionFloor);
      for (const record of group.shards) writeShard(record, out);
    }
    state.clients.forEach((client, index) => writeClient(bounds, client, index, out));
    out.push(state.network.length);
    for (const copy of state.network) {
      out.push(copy.to);
      writeCommand(copy.command, out);
    }
    out.push(state.crashes);
    out.push(state.duplicates);
    out.push(state.expiries);
    const history = state.history;
    for (let slot = 0; slot < requests; slot++) {
      out.push(history.applied[slot]! | (history.firstReused[slot] ? 4 : 0));
    }
    writeStrings(history.first, out);
    writeStrings(history.ghost, out);
    out.push((history.staleRead ? 1 : 0) | (history.unservedAnswer ? 2 : 0));
  };
  const decode = (input: WordReader): MigrationState => {
    const { controller, driver } = readControllerAndDriver(input, bounds, initial);
    const groups = [];
    for (let gid = 1; gid <= bounds.groups; gid++) {
      const sessionFloor = input.next();
      const shards: ShardState[] = [];
      for (let shard = 0; shard < bounds.shards; shard++) shards.push(readShard(input));
      groups.push({ gid, shards, sessionFloor });
    }
    const clients: ClientState[] = [];
    for (let client = 0; client < bounds.clients; client++) {
      clients.push(readClient(input, bounds, client, controller.configs));
    }
    const network: InFlight[] = [];
    for (let count = input.next(); count > 0; count--) {
      const to = input.next();
      network.push({ to, command: readCommand(input) });
    }
    const crashes = input.next();
    const duplicates = input.next();
    const expiries = input.next();
    const applied: number[] = [];
    const firstReused: boolean[] = [];
    for (let index = 0; index < requests; index++) {
      const word = input.next();
      applied.push(word & 3);
      firstReused.push((word & 4) !== 0);
    }
    const first = readStrings(input, requests);
    const ghost = readStrings(input, bounds.shards) as string[];
    const flags = input.next();
    const history = {
      applied, first, firstReused, ghost,
      staleRead: (flags & 1) !== 0, unservedAnswer: (flags & 2) !== 0,
    };
    return { controller, driver, groups, clients, network, crashes, duplicates, expiries, history };
  };
  return { encode, decode };
}
