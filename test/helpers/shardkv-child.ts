// The CLI from source as its own process (what bin/shardkv.js runs from dist/), for tests
// that need real stdout/stderr, exit codes and signals.
import { main } from '../../cli/main.js';

process.exitCode = await main(process.argv.slice(2));
