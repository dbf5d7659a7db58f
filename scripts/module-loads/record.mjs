// `node --import <this file> …` writes one line per module the process loads to $LOOP_RUNTIME_LOAD_LOG: a file's
// URL, or `node:<name>` for a built-in.
// Only node:module is imported: a built-in imported here, before the hooks, would never reach them.
import Module, { register } from 'node:module';

const require = Module.createRequire(import.meta.url);
const { appendFileSync } = require('node:fs');
const { pathToFileURL } = require('node:url');

// What `import` loads: module hooks (hooks.mjs, on the loader thread).
register('./hooks.mjs', import.meta.url);

// What `require` loads (the CLI bundle is CommonJS, scripts/to-commonjs.js): Node 20's module hooks never see it.
const log = process.env.LOOP_RUNTIME_LOAD_LOG;
if (log) {
  const load = Module._load;
  Module._load = function recordedLoad(request, parent, isMain) {
    let url;
    try {
      url = Module.isBuiltin(request) ? `node:${request.replace(/^node:/, '')}` : pathToFileURL(Module._resolveFilename(request, parent, isMain)).href;
    } catch {
      // Not resolvable: `load` throws the error the caller expects.
    }
    if (url) appendFileSync(log, `${url}\n`);
    return load.apply(this, arguments);
  };
}
