/**
 * The migration driver (DESIGN §3): freeze / install / delete per moved shard, recovery from
 * the groups' facts, and the step function the controller leader runs.
 */
export * from './types.js';
export * from './bugs.js';
export * from './driver.js';
export * from './recovery.js';
export * from './driver-step.js';
