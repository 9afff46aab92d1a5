/**
 * Reading the docs as the docs test needs them: fenced blocks, a shell line's trailing comment,
 * the expectations it states, and the anchors GitHub gives a page's headings.
 */

export interface Block {
  readonly language: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  readonly lines: readonly string[];
}

/** Every fenced block (``` or ~~~), with its info string's first word as the language. */
export function fencedBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  let open: { fence: string; language: string; line: number; lines: string[] } | null = null;
  for (const [index, line] of lines.entries()) {
    const fence = /^(```+|~~~+)\s*(\S*)/.exec(line);
    if (open === null) {
      if (fence === null) continue;
      open = { fence: fence[1]!, language: fence[2]!, line: index + 1, lines: [] };
    } else if (line.trim() === open.fence) {
      blocks.push({ language: open.language, line: open.line, lines: open.lines });
      open = null;
    } else open.lines.push(line);
  }
  return blocks;
}

/** A shell line split at its comment: a `#` after white space, outside quotes. */
export function commentOf(line: string): { command: string; text: string } | null {
  let quote: string | null = null;
  for (let index = 0; index < line.length; index += 1) {
    const character = line[index]!;
    if (quote !== null) {
      if (character === quote) quote = null;
      else if (character === '\\' && quote === '"') index += 1;
    } else if (character === "'" || character === '"') quote = character;
    else if (character === '\\') index += 1;
    else if (character === '#' && index > 0 && /\s/.test(line[index - 1]!)) {
      const command = line.slice(0, index).trimEnd();
      return command === '' ? null : { command, text: line.slice(index + 1).trim() };
    }
  }
  return null;
}

/**
 * What a comment promises: `exit N` (at its start; default 0) and `prints: TEXT` (to its end:
 * the command's stdout or stderr contains TEXT).
 */
export function expectationsOf(comment: string): { exitCode: number; prints: string | null } {
  const exit = /^exit (\d+)\b/.exec(comment);
  const prints = /(?:^|[,;]\s*)prints: (.+)$/.exec(comment);
  return { exitCode: exit === null ? 0 : Number(exit[1]), prints: prints?.[1]?.trim() ?? null };
}

/** The anchors of a page's headings, as GitHub makes them (duplicates get -1, -2, ...). */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const inCode = new Set(fencedBlocks(markdown).flatMap((block) =>
    block.lines.map((_, offset) => block.line + 1 + offset)));
  for (const [index, line] of markdown.split('\n').entries()) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading === null || inCode.has(index + 1)) continue;
    const base = heading[1]!.trim().toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    let slug = base;
    for (let copy = 1; slugs.has(slug); copy += 1) slug = `${base}-${copy}`;
    slugs.add(slug);
  }
  return slugs;
}
