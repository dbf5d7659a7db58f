#!/usr/bin/env node
// The CLI runs the library's own build (tsc's dist/src): one copy of every class, so an error a backend plugin throws
// with the LoopRuntimeError it imported from 'loop-runtime' is the CLI's LoopRuntimeError (exit 3, not 1).
import { main } from '../dist/src/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
