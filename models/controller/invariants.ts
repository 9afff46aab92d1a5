/**
 * The `controller` model's invariants: the library's (invariants/controller.ts), read on the
 * model's state, which is the library's view as it is (the latest configuration and the
 * measurements of the step that made it), so the checker's hot loop builds nothing.
 */
import type { Invariant } from '../../checker/model.js';
import { controllerInvariants } from '../../invariants/controller.js';
import type { ControllerModelState } from './model.js';

export function controllerModelInvariants(shardCount: number): Invariant<ControllerModelState>[] {
  return controllerInvariants(shardCount);
}
