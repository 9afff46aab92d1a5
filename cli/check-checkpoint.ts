/** `check --checkpoint DIR [--every SECONDS]` and `--resume DIR`: flags to options. */
import type { CheckpointOptions } from '../checker/checkpoint.js';
import type { ModelDefinition, Params } from '../checker/model.js';
import { UsageError } from '../checker/params.js';
import type { ParsedArgs } from './args.js';
import { openDirectory } from './file-directory.js';

const defaultEverySeconds = 60;

/** What a checkpoint must match to be resumed: the model, its bounds, bug and options. */
interface Checked {
  readonly definition: ModelDefinition;
  readonly params: Params;
  readonly bug: string | undefined;
  readonly deadlock: boolean;
  readonly continued: boolean;
}

export function checkpointOptions(
  args: ParsedArgs,
  strategy: string,
  checked: Checked,
): CheckpointOptions | undefined {
  const written = args.values['checkpoint'];
  const resumed = args.values['resume'];
  const everyText = args.values['every'];
  if (written === undefined && resumed === undefined) {
    if (everyText !== undefined) throw new UsageError('--every needs --checkpoint DIR');
    return undefined;
  }
  if (strategy !== 'bfs') throw new UsageError('--checkpoint and --resume need --strategy bfs');
  if (checked.continued) throw new UsageError('--checkpoint and --resume run without --continue');
  if (written !== undefined && resumed !== undefined && written !== resumed) {
    throw new UsageError('--checkpoint and --resume name one directory');
  }
  const everySeconds = everyText === undefined ? defaultEverySeconds : Number(everyText);
  if (!Number.isFinite(everySeconds) || everySeconds < 0) {
    throw new UsageError(`--every must be a number of seconds, got '${everyText}'`);
  }
  const { definition, params, bug, deadlock } = checked;
  return {
    directory: openDirectory((resumed ?? written)!),
    // A resumed search keeps writing checkpoints, so it can be stopped and resumed again.
    everySeconds,
    resume: resumed !== undefined,
    identity: JSON.stringify({ model: definition.name, params, bug: bug ?? null, deadlock }),
  };
}
