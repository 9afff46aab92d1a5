/**
 * The `--html` page: one self-contained file (inline CSS and SVG, no script, no network) that
 * shows each key's operations as bars on a time axis, one row per client, the linearization
 * the search found (its points joined in order), and the operation where it fails, in the
 * manner of Porcupine's visualisation. The deciding key comes first.
 */
import { escapeHtml as escape } from '../html-escape.js';
import type { PartitionReport } from './check.js';
import { explanationLines, type LincheckResult } from './index.js';
import { KeyValueKind, kindName, type KeyValueInput, type StringTable } from './kv-model.js';

/** Operations drawn in one page; keys beyond it are listed with their verdict only. */
const drawnOperationsMax = 4000;
/** Operations drawn for one key; a longer key shows a window of them. */
const keyOperationsDrawnMax = 600;
const rowHeight = 28;
const barHeight = 18;
/** Column widths (px): wide enough for labels on small keys, narrow enough for long ones. */
const unitWidthMin = 14;
const unitWidthMax = 64;
const targetWidth = 1100;
const labelWidth = 90;
const axisHeight = 24;
/** Up to this many linearization points are numbered on the page. */
const numberedPointsMax = 60;

type KeyReport = PartitionReport<KeyValueInput, string>;

export function renderHtml(result: LincheckResult): string {
  const { report } = result;
  const order = report.partitions.map((_, index) => index);
  if (report.decidingPartition !== undefined) {
    order.splice(order.indexOf(report.decidingPartition), 1);
    order.unshift(report.decidingPartition);
  }
  let drawn = 0;
  const sections: string[] = [];
  const listed: string[] = [];
  for (const index of order) {
    const partition = report.partitions[index]!;
    const size = Math.min(partition.operations.length, keyOperationsDrawnMax);
    if (drawn + size <= drawnOperationsMax || drawn === 0) {
      drawn += size;
      sections.push(renderKey(result, partition));
    } else {
      listed.push(`<li>key ${escape(JSON.stringify(partition.name))}: `
        + `${partition.operations.length} operations, ${verdictText(partition)}</li>`);
    }
  }
  const title = `lincheck: ${result.verdict}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>${style}</style></head><body>
<h1>${escape(title)}</h1>
<p class="summary">${plural(result.operations, 'operation')} on ${plural(result.keys, 'key')}, `
    + `checked in `
    + `${result.seconds.toFixed(3)} s.
Bars are operations from call to return (one row per client; the axis is event order, not
scaled time); a dashed bar has an unknown outcome. Dots joined by the line are the
linearization points in the order found; red marks the operation that cannot follow the
longest linearizable prefix; grey bars are outside that prefix.</p>
${sections.join('\n')}
${listed.length > 0 ? `<h2>Keys not drawn</h2><ul>${listed.join('')}</ul>` : ''}
</body></html>
`;
}

function verdictText(partition: KeyReport): string {
  const verdict = partition.result?.verdict;
  return verdict === undefined ? 'not checked (another key decided the verdict)' : verdict;
}

interface Bar {
  readonly row: number;
  readonly start: number;
  readonly end: number;
  readonly unknown: boolean;
}

/** Positions in event order: each distinct time gets the next column; unknown ends last. */
function layoutBars(
  partition: KeyReport, shown: readonly number[],
): { bars: Map<number, Bar>; columns: number; clients: string[] } {
  const operations = shown.map((index) => partition.operations[index]!);
  const times = new Set<number>();
  for (const operation of operations) {
    times.add(operation.call);
    if (operation.return !== Infinity) times.add(operation.return);
  }
  const sorted = [...times].sort((left, right) => left - right);
  const column = new Map(sorted.map((time, index) => [time, index]));
  const clients = [...new Set(operations.map((operation) => operation.client))]
    .sort((left, right) => left.localeCompare(right, 'en', { numeric: true }));
  const row = new Map(clients.map((client, index) => [client, index]));
  const bars = new Map(shown.map((index, at) => {
    const operation = operations[at]!;
    return [index, {
      row: row.get(operation.client)!,
      start: column.get(operation.call)!,
      end: operation.return === Infinity ? sorted.length : column.get(operation.return)!,
      unknown: operation.return === Infinity,
    }];
  }));
  return { bars, columns: sorted.length + 1, clients };
}

/**
 * The operations drawn for a key: all of them, or for a long key a window in call order
 * around the operation that matters (the failing one, else the end of the prefix).
 */
function shownOperations(partition: KeyReport): number[] {
  const { operations } = partition;
  const all = operations.map((_, index) => index);
  if (operations.length <= keyOperationsDrawnMax) return all;
  const byCall = all.sort((left, right) => operations[left]!.call - operations[right]!.call);
  const prefix = partition.result?.prefix ?? [];
  const focus = partition.result?.failing ?? prefix.at(-1) ?? byCall[0]!;
  const rank = byCall.indexOf(focus);
  const start = Math.max(0, Math.min(rank - Math.floor(keyOperationsDrawnMax * 0.75),
    operations.length - keyOperationsDrawnMax));
  return byCall.slice(start, start + keyOperationsDrawnMax).sort((left, right) => left - right);
}

/**
 * Linearization points: non-decreasing, each inside its operation's bar, at the bar's middle
 * when the order allows. Latest feasible points are computed backwards first, so that a point
 * placed late never pushes a later operation's point past its return.
 */
function linearizationPoints(bars: ReadonlyMap<number, Bar>, prefix: readonly number[]): number[] {
  const latest: number[] = new Array<number>(prefix.length);
  let bound = Infinity;
  for (let order = prefix.length - 1; order >= 0; order--) {
    bound = Math.min(bound, bars.get(prefix[order]!)!.end);
    latest[order] = bound;
  }
  const points: number[] = [];
  let last = -Infinity;
  prefix.forEach((index, order) => {
    const bar = bars.get(index)!;
    const earliest = Math.max(bar.start, last);
    const point = Math.min(latest[order]!, Math.max(earliest, (bar.start + bar.end) / 2));
    points.push(point);
    last = point;
  });
  return points;
}

function renderKey(result: LincheckResult, partition: KeyReport): string {
  const shown = shownOperations(partition);
  const { bars, columns, clients } = layoutBars(partition, shown);
  const fullPrefix = partition.result?.prefix ?? [];
  const position = new Map(fullPrefix.map((index, order) => [index, order]));
  const prefix = fullPrefix.filter((index) => bars.has(index));
  const failing = partition.result?.failing;
  const points = linearizationPoints(bars, prefix);
  const unitWidth = Math.min(unitWidthMax, Math.max(unitWidthMin, targetWidth / columns));
  const x = (column: number): number => labelWidth + 8 + column * unitWidth;
  const y = (row: number): number => axisHeight + row * rowHeight;
  const width = x(columns) + 16;
  const height = y(clients.length) + 8;
  const parts: string[] = [];
  clients.forEach((client, row) => {
    parts.push(`<text class="client" x="${labelWidth}" y="${y(row) + barHeight - 4}">`
      + `client ${escape(client)}</text>`);
  });
  shown.forEach((index) => {
    const operation = partition.operations[index]!;
    const bar = bars.get(index)!;
    const order = position.get(index);
    const kind = index === failing ? 'failing' : order === undefined ? 'outside' : 'linearized';
    const text = operationLabel(result.strings, operation.input, operation.output);
    const line = result.history[operation.id]!.line;
    const tip = `line ${line}: ${text}${order === undefined ? '' : ` (linearized #${order + 1})`}`;
    const barWidth = Math.max(unitWidth * 0.6, x(bar.end) - x(bar.start));
    parts.push(`<g class="op ${kind}${bar.unknown ? ' unknown' : ''}"><title>${escape(tip)}</title>`
      + `<rect x="${x(bar.start)}" y="${y(bar.row)}" width="${barWidth}" `
      + `height="${barHeight}" rx="3"/>`
      + `<text x="${x(bar.start) + 3}" y="${y(bar.row) + barHeight - 5}">`
      + `${escape(fit(text, barWidth))}</text></g>`);
  });
  const path = prefix.map((index, order) =>
    `${x(points[order]!).toFixed(1)},${y(bars.get(index)!.row) + barHeight / 2}`);
  if (path.length > 1) parts.push(`<polyline class="order" points="${path.join(' ')}"/>`);
  prefix.forEach((index, order) => {
    const cx = x(points[order]!).toFixed(1);
    const cy = y(bars.get(index)!.row) + barHeight / 2;
    const number = position.get(index)! + 1;
    parts.push(`<circle class="point" cx="${cx}" cy="${cy}" r="3.5">`
      + `<title>#${number}</title></circle>`);
    if (prefix.length <= numberedPointsMax) {
      parts.push(`<text class="number" x="${cx}" y="${cy - 6}">${number}</text>`);
    }
  });
  const verdict = verdictText(partition);
  const explanation = result.explanation && result.explanation.key === partition.name
    && partition.result?.verdict !== 'linearizable'
    ? `<pre class="explanation">`
      + `${escape(explanationLines(result.explanation, 12).join('\n'))}</pre>`
    : '';
  return `<section><h2>key ${escape(JSON.stringify(partition.name))} <span class="verdict `
    + `${escape(verdict.split(' ')[0]!)}">${escape(verdict)}</span></h2>
<p>${plural(partition.operations.length, 'operation')} by ${plural(clients.length, 'client')}; `
    + `${fullPrefix.length} linearized.${shown.length < partition.operations.length
      ? ` Showing ${shown.length} of them, around the operation that matters.` : ''}</p>
${explanation}<div class="timeline"><svg width="${width}" `
    + `height="${height}" viewBox="0 0 ${width} ${height}">`
    + `<text class="axis" x="${x(0)}" y="14">event order &#8594;</text>${parts.join('')}</svg></div>
</section>`;
}

function operationLabel(
  strings: StringTable, input: KeyValueInput, output: string | undefined,
): string {
  if (input.kind === KeyValueKind.Get) {
    return `get -> ${output === undefined ? '?' : JSON.stringify(output)}`;
  }
  return `${kindName(input.kind)} ${JSON.stringify(strings.text(input.value))}`;
}

/** Truncates a label to what fits in a bar (about 6.5 px per character at 11 px). */
function fit(text: string, width: number): string {
  const characters = Math.floor((width - 6) / 6.5);
  if (characters <= 1) return '';
  return text.length <= characters ? text : text.slice(0, characters - 1) + '\u2026';
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

const style = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2330; background: #fff; }
h1 { font-size: 20px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 24px 0 4px; }
.summary { max-width: 860px; color: #4a5263; }
.verdict { font-size: 12px; padding: 2px 8px; border-radius: 10px; margin-left: 8px; }
.verdict.linearizable { background: #dcf3e3; color: #176a35; }
.verdict.not-linearizable { background: #fbdcdc; color: #a01c1c; }
.verdict.unknown, .verdict.not { background: #eceef2; color: #4a5263; }
.timeline { overflow-x: auto; border: 1px solid #e2e5ec; border-radius: 6px; }
.explanation { background: #fff6f6; border-left: 3px solid #d23b3b; padding: 8px 12px;
  white-space: pre-wrap; font-size: 12px; }
svg text { font: 11px ui-monospace, monospace; }
text.client { text-anchor: end; fill: #4a5263; }
text.axis { fill: #8a91a0; }
.op rect { stroke-width: 1; }
.op.linearized rect { fill: #cfe3fb; stroke: #3b78c4; }
.op.outside rect { fill: #eceef2; stroke: #a4abb8; }
.op.failing rect { fill: #fbdcdc; stroke: #d23b3b; stroke-width: 2; }
.op.unknown rect { stroke-dasharray: 4 3; fill-opacity: 0.6; }
.op text { fill: #1d2330; }
polyline.order { fill: none; stroke: #1f4f8c; stroke-width: 1.2; opacity: 0.55; }
circle.point { fill: #1f4f8c; }
text.number { font-size: 9px; fill: #1f4f8c; text-anchor: middle; font-weight: bold; }
`;
