/** The shard controller: configurations, Join/Leave/Move/Query and minimal-move rebalancing. */
export * from './types.js';
export * from './rebalance.js';
export * from './operations.js';
export * from './state-machine.js';
export * from './invariants.js';
export * from './model.js';
