/** The benchmark sections, each in a file of its own. */
import { controllerSection } from './controller.js';

export interface BenchSection {
  readonly name: string;
  readonly description: string;
  run(): Promise<void>;
}

export const sections: readonly BenchSection[] = [controllerSection];
