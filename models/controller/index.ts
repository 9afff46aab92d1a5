/** The `controller` model: the controller's operations explored over a gid universe. */
export * from './invariants.js';
export * from './model.js';
