/** Turns a broken assumption into a loud crash instead of silent corruption (TigerStyle). */
export class AssertionError extends Error {
  override name = 'AssertionError';
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
