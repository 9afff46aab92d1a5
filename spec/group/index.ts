/**
 * The replica group's replicated state machine (DESIGN §3): what every replica of one group
 * applies, in log order. Named for what it is: DESIGN's `shardkv` is the whole system.
 */
export * from './types.js';
export * from './ordered-map.js';
export * from './btree-map.js';
export * from './digest.js';
export * from './group.js';
export * from './client-requests.js';
export * from './size-policy.js';
export * from './retry-admission.js';
export * from './migration-steps.js';
export * from './image-cut.js';
export * from './image-parts.js';
export * from './image-delta.js';
export * from './state-machine.js';
