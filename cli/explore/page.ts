/**
 * The explorer's one page: inline CSS and a small script, no network resource and no build
 * step. The URL's hash holds the path (`#0.3.1`: initial state 0, then actions 3 and 1), so
 * a path is shared by copying the address; every view is fetched from the server (server.ts).
 */
import { escapeHtml } from '../../checker/html-escape.js';

export function explorerPage(title: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${style}</style></head><body>
<header><h1 id="model">${escapeHtml(title)}</h1>
<button id="find-violation">Find the shortest violation (BFS)</button>
<span id="search-result"></span></header>
<p id="error" hidden></p>
<main>
<section><h2>Path</h2>
<p id="initial"></p>
<ol id="steps"></ol>
<p>Share this path: <a id="share" href="#0">#0</a></p></section>
<section><h2>Enabled actions</h2><p id="deadlock" hidden>Deadlock: no action is enabled.</p>
<ul id="actions"></ul></section>
<section><h2>Invariants here</h2><ul id="invariants"></ul></section>
<section><h2>State</h2><table id="variables"></table></section>
<section class="wide"><h2>Sequence diagram</h2><div id="diagram"></div>
<details><summary>Mermaid</summary><pre id="mermaid"></pre></details></section>
</main>
<script>${script}</script>
</body></html>
`;
}

const style = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 16px 24px; color: #1d2330; }
header { display: flex; gap: 16px; align-items: baseline; flex-wrap: wrap; }
h1 { font-size: 20px; margin: 0; } h2 { font-size: 15px; margin: 16px 0 4px; }
main { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 0 24px; }
.wide { grid-column: 1 / -1; }
#error { color: #b33a2f; font-weight: 600; }
ul, ol { padding-left: 20px; margin: 4px 0; }
#actions li { margin-bottom: 6px; }
#actions button { font: inherit; cursor: pointer; }
.changes { font: 12px ui-monospace, monospace; color: #4a5263; white-space: pre-wrap; margin: 2px 0 0; }
.bad { color: #b33a2f; font-weight: 600; } .good { color: #23784a; }
.outside { color: #7a8294; font-style: italic; }
table { border-collapse: collapse; font: 12px ui-monospace, monospace; }
td { border-top: 1px solid #e3e6ec; padding: 2px 8px 2px 0; vertical-align: top; }
td:first-child { font-weight: 600; white-space: nowrap; }
#diagram { overflow-x: auto; border: 1px solid #d8dce4; min-height: 24px; }
svg text { font: 12px system-ui, sans-serif; text-anchor: middle; fill: #1d2330; }
svg .participant { font-weight: 600; } svg .step { text-anchor: start; fill: #7a8294; }
svg .lifeline { stroke: #c3c9d5; stroke-dasharray: 4 4; }
svg .message line { stroke: #2f5fb3; stroke-width: 1.5; } svg marker path { fill: #2f5fb3; }
svg .message.lost line { stroke: #b33a2f; stroke-dasharray: 5 3; } svg .lost { fill: #b33a2f; }
svg .note rect { fill: #fff6d6; stroke: #d9c37a; }
`;

// Plain browser JavaScript (no modules, no framework): what the page runs as it is.
const script = String.raw`
const $ = (id) => document.getElementById(id);
const element = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
};
const currentPath = () => (location.hash.slice(1) || '0');
const go = (path) => { location.hash = path; };

async function getJson(url) {
  const response = await fetch(url);
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function renderPath(view) {
  const path = [view.path.initialIndex, ...view.path.actionIndexes];
  const initial = $('initial');
  initial.replaceChildren('Initial state: ');
  for (let index = 0; index < view.initialStates; index++) {
    const link = element('a', String(index));
    link.href = '#' + index;
    if (index === view.path.initialIndex) link.className = 'good';
    initial.append(link, ' ');
  }
  $('steps').replaceChildren(...view.steps.map((label, index) => {
    const item = element('li');
    const link = element('a', label);
    link.href = '#' + path.slice(0, index + 2).join('.');
    item.append(link);
    return item;
  }));
  $('share').href = '#' + path.join('.');
  $('share').textContent = location.href;
}

function renderActions(view) {
  $('deadlock').hidden = !view.deadlock;
  const prefix = [view.path.initialIndex, ...view.path.actionIndexes].join('.');
  $('actions').replaceChildren(...view.actions.map((action) => {
    const item = element('li');
    const button = element('button', action.label);
    button.dataset.index = String(action.index);
    button.onclick = () => go(prefix + '.' + action.index);
    item.append(button);
    if (action.violates.length > 0) {
      item.append(' ', element('span', 'violates ' + action.violates.join(', '), 'bad'));
    }
    if (!action.withinBounds) item.append(' ', element('span', 'outside the bounds', 'outside'));
    item.append(element('pre', action.changes.join('\n') || '(no change)', 'changes'));
    return item;
  }));
}

function renderInvariants(view) {
  $('invariants').replaceChildren(...view.invariants.map((invariant) => {
    const item = element('li', (invariant.holds ? '\u2713 ' : '\u2717 ') + invariant.name,
      invariant.holds ? 'good' : 'bad');
    item.dataset.holds = String(invariant.holds);
    if (invariant.witness) item.append(element('div', 'Why it fails: ' + invariant.witness));
    return item;
  }));
}

function renderState(view) {
  $('variables').replaceChildren(...view.variables.map((variable) => {
    const row = element('tr');
    row.append(element('td', variable.name), element('td', variable.value));
    return row;
  }));
  $('diagram').innerHTML = view.svg;
  $('mermaid').textContent = view.mermaid;
}

async function load() {
  try {
    const view = await getJson('/api/view?path=' + encodeURIComponent(currentPath()));
    $('error').hidden = true;
    renderPath(view);
    renderActions(view);
    renderInvariants(view);
    renderState(view);
    document.body.dataset.loaded = currentPath();
  } catch (error) {
    $('error').hidden = false;
    $('error').textContent = error.message;
    document.body.dataset.loaded = 'error';
  }
}

$('find-violation').onclick = async () => {
  $('search-result').textContent = 'searching...';
  try {
    const found = await getJson('/api/violation');
    if (found.result === 'violation') {
      $('search-result').textContent = 'shortest violation of ' + found.invariant + ': ' +
        found.path.actionIndexes.length + ' steps';
      go([found.path.initialIndex, ...found.path.actionIndexes].join('.'));
    } else {
      $('search-result').textContent = found.result === 'ok'
        ? 'no invariant is violated in ' + found.distinctStates + ' states'
        : 'no violation found before the time limit (' + found.distinctStates + ' states)';
    }
  } catch (error) {
    $('search-result').textContent = error.message;
  }
};

addEventListener('hashchange', load);
load();
`;
