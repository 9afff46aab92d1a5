// `shardkv cluster|ctl|kv --help` list their subcommands; each listing is the first sentence of
// the subcommand's own summary, whole (it used to stop at the summary's first line break:
// "start ... on loopback; returns"), within 100 columns.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli.js';

const columns = 100;

/** name -> listed text (continuation lines joined) from a group's help. */
function listing(help: string): Map<string, string> {
  const lines = help.split('\n');
  const start = lines.indexOf('Subcommands:') + 1;
  const listed = new Map<string, string>();
  let current = '';
  for (const line of lines.slice(start)) {
    if (line.trim() === '') break;
    const named = /^ {2}(\S+)\s+(.*)$/.exec(line);
    if (named !== null) {
      current = named[1]!;
      listed.set(current, named[2]!);
    } else listed.set(current, `${listed.get(current)} ${line.trim()}`);
  }
  return listed;
}

/** The summary paragraph of `shardkv GROUP NAME --help`, lines joined. */
async function summary(group: string, name: string): Promise<string> {
  const help = await runCli(group, name, '--help');
  assert.is(help.code, 0);
  const paragraphs = help.stdout.split('\n\n');
  return paragraphs[1]!.split('\n').map((line) => line.trim()).join(' ');
}

for (const group of ['cluster', 'ctl', 'kv']) {
  test(`${group} --help lists every subcommand by a whole first sentence`, async () => {
    const help = await runCli(group, '--help');
    assert.is(help.code, 0);
    for (const line of help.stdout.split('\n')) assert.ok(line.length <= columns, line);
    const listed = listing(help.stdout);
    assert.ok(listed.size >= 3, help.stdout);
    for (const [name, text] of listed) {
      const whole = await summary(group, name);
      const sentenceEnd = whole.indexOf('. ');
      const first = sentenceEnd === -1 ? whole.replace(/\.$/, '') : whole.slice(0, sentenceEnd);
      assert.is(text, first, `${group} ${name}`);
    }
  });
}

test('cluster --help shows start up to the end of its first sentence', async () => {
  const listed = listing((await runCli('cluster', '--help')).stdout);
  const start = listed.get('start')!;
  assert.match(start, /returns when every node answers and the controllers have a leader$/);
});

test.run();
