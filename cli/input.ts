/**
 * Reading an input file with a size limit: a history or a model trace is read whole, so a file
 * that never ends (/dev/urandom, a pipe) or a huge one must fail with one line, not exhaust
 * memory; or as a stream (a node trace). Non-UTF-8 bytes are refused here too, before any
 * parser sees them.
 */
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { UsageError } from '../checker/params.js';

export const mebibyte = 2 ** 20;

/** The file's text; a UsageError (exit 2) when it is unreadable, too large or not UTF-8. */
export function readTextFile(path: string, limitBytes: number): string {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${errorCode(error)}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // One byte past the limit tells "exactly at the limit" from "larger".
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(4 * mebibyte, limitBytes + 1 - total));
      const count = readSync(descriptor, chunk, 0, chunk.length, null);
      if (count === 0) break;
      chunks.push(chunk.subarray(0, count));
      total += count;
      if (total > limitBytes) {
        throw new UsageError(
          `${path} is larger than the input limit of ${limitBytes / mebibyte} MiB`,
        );
      }
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`cannot read ${path}: ${errorCode(error)}`);
  } finally {
    closeSync(descriptor);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, total));
  } catch {
    throw new UsageError(`${path} is not UTF-8 text`);
  }
}

const streamChunkBytes = mebibyte;

/**
 * A file read as a stream of text chunks, from its start each time the source is called
 * (`conform` reads node traces so, however large). Opened once now, so an unreadable file is
 * one line at once; bytes that are not UTF-8 are refused as they are read.
 */
export function fileSource(path: string): () => Iterable<string> {
  try {
    closeSync(openSync(path, 'r'));
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${errorCode(error)}`);
  }
  return function* chunks() {
    const descriptor = openSync(path, 'r');
    try {
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const buffer = Buffer.allocUnsafe(streamChunkBytes);
      for (;;) {
        const count = readSync(descriptor, buffer, 0, streamChunkBytes, null);
        yield decodeOrRefuse(path, () => decoder.decode(buffer.subarray(0, count),
          { stream: count > 0 }));
        if (count === 0) break;
      }
    } finally {
      closeSync(descriptor);
    }
  };
}

function decodeOrRefuse(path: string, decode: () => string): string {
  try {
    return decode();
  } catch {
    throw new UsageError(`${path} is not UTF-8 text`);
  }
}

/** A file error's code (ENOENT, EACCES...), for one-line messages. */
export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** Writes a text file the user named; a failure is a one-line usage error. */
export function writeTextFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new UsageError(`cannot write ${path}: ${errorCode(error)}`);
  }
}
