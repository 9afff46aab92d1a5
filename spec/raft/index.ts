/**
 * Raft (the paper's §5 and §7, the dissertation's §6.4 and §9.6) as one pure step function
 * over a node's state: what the runtime's node shell and the checker's `raft` model both run.
 */
export { step } from './step.js';
export { initialNode, quorum } from './node.js';
export { hardStateOf } from './persistence.js';
export * from './log.js';
export type * from './types.js';
export * from './bugs.js';
