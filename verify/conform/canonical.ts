/**
 * A canonical JSON text for comparing a spec value with a recorded one: object keys sorted
 * (a frame codec may order a message's fields its own way), ordered maps as their entry
 * lists (impl/node/json-maps.ts), undefined fields left out as JSON leaves them.
 */
import { stringifyWithMaps } from '../../impl/node/json-maps.js';

function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = (value as Record<string, unknown>)[key];
  }
  return sorted;
}

export function canonicalText(value: unknown): string {
  return JSON.stringify(JSON.parse(stringifyWithMaps(value)), sortKeys);
}
