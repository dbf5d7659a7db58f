#!/usr/bin/env node
// CommonJS (bin/package.json), as is the bundle it loads (scripts/to-commonjs.js): a command whose modules are all
// CommonJS never starts Node's ESM loader.
'use strict';

require('../dist/cli/main.js')
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
