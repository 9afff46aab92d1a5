/**
 * A canonical JSON text for comparing a spec value with a recorded one: object keys sorted
 * (a frame codec may order a message's fields its own way), ordered maps as their entry
 * lists (impl/node/json-maps.ts), undefined fields left out as JSON leaves them. Written in
 * one pass (conform compares every record's effects: issue 23 item 4); it gives the text
 * JSON.stringify would give for the same value with its keys sorted.
 */
import { isOrderedMap, mapTag } from '../../impl/node/json-maps.js';

function canonical(value: unknown): string | undefined {
  if (isOrderedMap(value)) {
    return canonical({ [mapTag]: Array.from(value.entries(), ([key, entry]) => [key, entry]) });
  }
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) {
    return `[${value.map((item) => canonical(item) ?? 'null').join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  const fields: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const text = canonical(record[key]);
    if (text !== undefined) fields.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${fields.join(',')}}`;
}

export function canonicalText(value: unknown): string {
  return canonical(value) ?? 'null';
}
