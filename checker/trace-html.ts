/**
 * `shardkv replay FILE --html OUT`: one self-contained page (inline CSS and SVG, no script,
 * no network) with the trace's sequence diagram (diagram.ts) drawn as SVG and, below it, each
 * step's label and the fields it changed (itf-diff.ts), so a counterexample reads top to
 * bottom like a story.
 */
import { participants, type DiagramEvent, type DiagramStep } from './diagram.js';
import { escapeHtml as escape } from './html-escape.js';
import { differences, formatDifference, maximumDifferences } from './itf-diff.js';
import type { Trace } from './trace.js';

const columnWidth = 150;
const marginLeft = 56;
const headerHeight = 40;
const rowHeight = 30;
const noteWidth = 136;
/** Characters of a note drawn; a message's label may span its arrow. The rest is a tooltip. */
const noteCharsMax = 22;
const pixelsPerChar = 6.5;

const fit = (text: string, chars: number) =>
  text.length <= chars ? text : `${text.slice(0, Math.max(1, chars - 1))}…`;

function drawEvent(event: DiagramEvent, y: number, x: (name: string) => number): string {
  const tip = `<title>${escape(event.text)}</title>`;
  if (event.kind === 'note') {
    const left = x(event.over) - noteWidth / 2;
    return `<g class="note">${tip}<rect x="${left}" y="${y - 11}" width="${noteWidth}" ` +
      `height="22" rx="3"/><text x="${x(event.over)}" y="${y + 4}">` +
      `${escape(fit(event.text, noteCharsMax))}</text></g>`;
  }
  const from = x(event.from);
  const to = event.lost ? x(event.from) + (x(event.to) - x(event.from)) * 0.7 : x(event.to);
  const chars = Math.max(noteCharsMax, Math.abs(x(event.to) - from) / pixelsPerChar);
  const end = event.lost
    ? `<text class="lost" x="${to}" y="${y + 5}">✕</text>`
    : '';
  return `<g class="message${event.lost ? ' lost' : ''}">${tip}<line x1="${from}" y1="${y}" ` +
    `x2="${to}" y2="${y}"${event.lost ? '' : ' marker-end="url(#arrow)"'}/>${end}` +
    `<text x="${(from + x(event.to)) / 2}" y="${y - 5}">${escape(fit(event.text, chars))}</text>` +
    '</g>';
}

/** The steps' sequence diagram as inline SVG (also the explorer's picture of its path). */
export function renderSvg(steps: readonly DiagramStep[]): string {
  const names = participants(steps);
  const column = new Map(names.map((name, index) => [name, index]));
  const x = (name: string) => marginLeft + columnWidth * (column.get(name)! + 0.5);
  const rows = steps.reduce((sum, step) => sum + Math.max(1, step.events.length), 0);
  const width = marginLeft + columnWidth * names.length;
  const height = headerHeight + rowHeight * (rows + 1);
  const parts: string[] = [];
  names.forEach((name) => {
    parts.push(`<text class="participant" x="${x(name)}" y="24">${escape(name)}</text>`,
      `<line class="lifeline" x1="${x(name)}" y1="32" x2="${x(name)}" y2="${height}"/>`);
  });
  let row = 0;
  for (const step of steps) {
    const top = headerHeight + rowHeight * (row + 0.5);
    parts.push(`<text class="step" x="8" y="${top + 4}">${step.step}</text>`);
    step.events.forEach((event, index) => parts.push(drawEvent(event, top + rowHeight * index, x)));
    row += Math.max(1, step.events.length);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="10" ` +
    `refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">` +
    `<path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>${parts.join('')}</svg>`;
}

function renderChanges(trace: Trace, step: number): string {
  const before = trace.states[step - 1];
  const after = trace.states[step];
  if (before === undefined || after === undefined) return '';
  const found = differences(before, after);
  const shown = found.slice(0, maximumDifferences).map(formatDifference);
  if (found.length > shown.length) shown.push(`... ${found.length - shown.length} more`);
  return `<pre>${escape(shown.join('\n') || '(no variable changed)')}</pre>`;
}

/**
 * The page for a replayed trace; `verdict` is replay's one-line result and `witness` the
 * violated invariant's explanation of the last state ("Why X fails: ..."), when it has one.
 */
export function renderTraceHtml(
  trace: Trace, steps: readonly DiagramStep[], verdict: string, witness?: string,
): string {
  const title = `${trace.model}${trace.bug ? ` with bug ${trace.bug}` : ''}: ` +
    `${steps.length} step${steps.length === 1 ? '' : 's'}`;
  const loop = trace.loop === undefined ? '' :
    `<p class="summary">A lasso: after step ${steps.length} the behaviour returns to the ` +
    `state after step ${trace.loop} and repeats forever.</p>`;
  const list = steps.map((step) => `<li value="${step.step}"><b>${escape(step.label)}</b>` +
    `${renderChanges(trace, step.step)}</li>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>${style}</style></head><body>
<h1>${escape(title)}</h1>
<p class="summary">${escape(verdict)}</p>${loop}${witness === undefined ? '' :
  `\n<p class="summary witness">${escape(witness)}</p>`}
<div class="diagram">${renderSvg(steps)}</div>
<h2>Steps</h2>
<ol class="steps">
${list}
</ol>
</body></html>
`;
}

const style = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 24px 0 4px; }
.summary { max-width: 860px; color: #4a5263; }
.diagram { overflow-x: auto; border: 1px solid #d8dce4; padding: 8px; }
svg text { font: 12px system-ui, sans-serif; text-anchor: middle; fill: #1d2330; }
svg .participant { font-weight: 600; }
svg .step { text-anchor: start; fill: #7a8294; }
svg .lifeline { stroke: #c3c9d5; stroke-dasharray: 4 4; }
svg .message line { stroke: #2f5fb3; stroke-width: 1.5; }
svg marker path { fill: #2f5fb3; }
svg .message.lost line { stroke: #b33a2f; stroke-dasharray: 5 3; }
svg .lost { fill: #b33a2f; }
svg .note rect { fill: #fff6d6; stroke: #d9c37a; }
.steps pre { margin: 4px 0 12px; font-size: 12px; white-space: pre-wrap; color: #4a5263; }
`;
