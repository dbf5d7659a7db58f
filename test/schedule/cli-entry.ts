/** Runs the CLI from source in a child process (for multi-process tests), bundled by test/bundled-child.ts: `node <bundle> -- <args>`. */
import { main } from '../../src/cli/main.js';

const separator = process.argv.indexOf('--');
process.exitCode = await main(separator === -1 ? process.argv.slice(2) : process.argv.slice(separator + 1));
