/**
 * The shard controller: configurations, Join/Leave/Move/Query, minimal-move rebalancing, and
 * the migration intent (plan / publish) in one replicated state machine.
 */
export * from './types.js';
export * from './bugs.js';
export * from './plan.js';
export * from './rebalance.js';
export * from './operations.js';
export * from './state-machine.js';
