/** The migration driver (DESIGN §3): plan, freeze / install / delete, recover, publish. */
export * from './types.js';
export * from './driver.js';
export * from './recovery.js';
