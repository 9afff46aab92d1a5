/**
 * A real headless Chromium for tests, with nothing installed beyond `npm ci`: the devDependency
 * @sparticuz/chromium ships the browser brotli-compressed inside its npm tarball. We inflate the
 * binary into a temporary folder, drive it over the DevTools protocol on a pipe (fd 3 and 4,
 * NUL-terminated JSON; no WebSocket, no port), and delete the folder afterwards.
 *
 * The one-shot `--screenshot` switch is not used: this headless-shell build hangs on it here,
 * while the same binary answers the DevTools protocol at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

const packageName = '@sparticuz/chromium';
const commandTimeoutMs = 60_000;

/** The folder of the package's compressed browser, or a one-line reason why there is none. */
function compressedBrowser(): string {
  let entry: string;
  try {
    entry = createRequire(join(process.cwd(), 'package.json')).resolve(packageName);
  } catch {
    throw new Error(`${packageName} is not installed: run \`npm ci\` (it is a devDependency)`);
  }
  // The package's entry lives in build/cjs/ or build/esm/; the browser in bin/ beside build/.
  const file = join(dirname(entry), '..', '..', 'bin', 'chromium.br');
  if (!existsSync(file)) throw new Error(`${packageName} ships no ${file}`);
  return file;
}

export interface Browser {
  /** Loads `url` in a page of the given size and returns a PNG of it. */
  screenshot(url: string, width: number, height: number): Promise<Buffer>;
  /** Evaluates a JavaScript expression in the last loaded page; returns its value. */
  evaluate(expression: string): Promise<unknown>;
}

/** Runs `use` with a fresh browser; the browser and its folder are gone afterwards. */
export async function withBrowser<T>(use: (browser: Browser) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), 'shardkv-browser-'));
  let child: ChildProcess | undefined;
  try {
    const executable = join(folder, 'chromium');
    await pipeline(
      createReadStream(compressedBrowser()),
      createBrotliDecompress(),
      createWriteStream(executable, { mode: 0o755 }),
    );
    child = spawn(
      executable,
      [
        '--headless',
        '--no-sandbox', // tests run as root in CI
        '--no-zygote',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${join(folder, 'profile')}`,
        '--remote-debugging-pipe',
        'about:blank',
      ],
      // Its own process group, so that the renderer and helper processes, which outlive a
      // closed browser for a moment and write into the profile, can be killed with it.
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], detached: true },
    );
    const session = new DevtoolsSession(child);
    const browser = await session.openPage();
    const result = await use(browser);
    await session.call('Browser.close').catch(() => undefined);
    return result;
  } finally {
    if (child) await killGroup(child);
    rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

/** Kills the browser's whole process group and waits for the browser itself to exit. */
async function killGroup(child: ChildProcess): Promise<void> {
  const running = child.exitCode === null && child.signalCode === null;
  const exited = running ? new Promise((resolve) => child.once('exit', resolve)) : undefined;
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already.
  }
  await exited;
}

interface Reply {
  readonly id?: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

/** The DevTools protocol over the browser's pipe: one request, one reply, matched by id. */
class DevtoolsSession {
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private buffered = Buffer.alloc(0);
  private stderr = '';
  private exited: string | undefined;

  constructor(private readonly child: ChildProcess) {
    const fromBrowser = child.stdio[4] as Readable;
    fromBrowser.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
    });
    child.on('exit', (code, signal) => {
      this.exited = `the browser exited (${signal ?? code}): ${this.stderr.trim().slice(-300)}`;
      for (const resolve of this.pending.values()) resolve({ error: { message: this.exited } });
      this.pending.clear();
    });
  }

  private receive(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (let end = this.buffered.indexOf(0); end !== -1; end = this.buffered.indexOf(0)) {
      const reply = JSON.parse(this.buffered.subarray(0, end).toString()) as Reply;
      this.buffered = this.buffered.subarray(end + 1);
      const resolve = reply.id === undefined ? undefined : this.pending.get(reply.id);
      if (resolve) {
        this.pending.delete(reply.id!);
        resolve(reply);
      }
    }
  }

  call(method: string, params: object = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve) => this.pending.set(id, resolve));
    const request = { id, method, params, ...(sessionId ? { sessionId } : {}) };
    (this.child.stdio[3] as Writable).write(JSON.stringify(request) + '\0');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<Reply>((resolve) => {
      timer = setTimeout(
        () => resolve({ error: { message: `${method}: no answer in ${commandTimeoutMs} ms` } }),
        commandTimeoutMs,
      );
    });
    return Promise.race([reply, timeout]).then((answer) => {
      clearTimeout(timer);
      if (answer.error) throw new Error(`${method}: ${answer.error.message}`);
      return answer.result ?? {};
    });
  }

  async openPage(): Promise<Browser> {
    const { targetId } = await this.call('Target.createTarget', { url: 'about:blank' });
    const attached = await this.call('Target.attachToTarget', { targetId, flatten: true });
    const sessionId = attached['sessionId'] as string;
    const page = (method: string, params: object = {}) => this.call(method, params, sessionId);
    await page('Page.enable');
    return {
      screenshot: async (url, width, height) => {
        await page('Emulation.setDeviceMetricsOverride', {
          width,
          height,
          deviceScaleFactor: 1,
          mobile: false,
        });
        const navigation = await page('Page.navigate', { url });
        if (navigation['errorText']) throw new Error(`${url}: ${String(navigation['errorText'])}`);
        await page('Runtime.evaluate', {
          expression: 'new Promise((done) => document.readyState === "complete" ? done() : ' +
            'addEventListener("load", () => done()))',
          awaitPromise: true,
        });
        const shot = await page('Page.captureScreenshot', { format: 'png' });
        return Buffer.from(shot['data'] as string, 'base64');
      },
      evaluate: async (expression) => {
        const evaluated = await page('Runtime.evaluate', { expression, returnByValue: true });
        return (evaluated['result'] as { value?: unknown }).value;
      },
    };
  }
}
