#!/usr/bin/env node
// The CLI is an entry point of the same bundle as the library (scripts/build-bundle.js): one copy of every class,
// so an error a backend plugin throws with the LoopRuntimeError it imported from 'loop-runtime' is the CLI's
// LoopRuntimeError (exit 3, not 1).
import { main } from '../dist/lib/cli.js';

process.exitCode = await main(process.argv.slice(2));
