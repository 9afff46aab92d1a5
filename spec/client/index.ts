/**
 * The client (DESIGN §2): sessions, sequence numbers, the configuration cache, key-to-shard
 * routing, retries and unknown outcomes, as one step function that the `migration` model's
 * clients and impl/clerk both run.
 */
export * from './types.js';
export * from './client-step.js';
export * from './leader-search.js';
export * from './attempt-timeout.js';
