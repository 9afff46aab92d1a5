/** The replica group's replicated state machine (DESIGN §3): shards, dedup, migration steps. */
export * from './types.js';
export * from './digest.js';
export * from './group.js';
export * from './client-requests.js';
export * from './migration-steps.js';
export * from './state-machine.js';
