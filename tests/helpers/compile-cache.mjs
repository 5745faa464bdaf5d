/**
 * Loaded into each test server (`node --import`, tests/helpers/server.ts): V8's code cache of every CommonJS module the
 * server loads (Next.js and the built server's chunks), kept on disk in WATCH_TEST_COMPILE_CACHE between starts, so
 * that a start does not parse them again (about a CPU-second of a start's eight). Node.js 22 has this built in
 * (`module.enableCompileCache()`); on Node.js 20 it is this hook. A module whose source has changed gets a new entry.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import Module from "node:module";
import path from "node:path";
import vm from "node:vm";

const dir = process.env.WATCH_TEST_COMPILE_CACHE;
if (dir) {
  fs.mkdirSync(dir, { recursive: true });
  /** Scripts compiled without a usable cache entry: their code cache is written at exit, with what has run compiled. */
  const compiled = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    // A script made from cached data loses its import() callback on Node.js 20: such modules compile as usual.
    if (!/\.c?js$/.test(filename) || content.includes("import(")) return compile.call(this, content, filename);
    const key = path.join(dir, crypto.createHash("sha1").update(filename).update("\0").update(content).digest("hex"));
    let cachedData;
    try {
      cachedData = fs.readFileSync(key);
    } catch {
      // Not cached yet.
    }
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      // Not CommonJS (an ES module that Node.js loads through require): Node.js's own way.
      return compile.call(this, content, filename);
    }
    if (!cachedData || script.cachedDataRejected) compiled.push({ key, script });
    // Looked up at each call, as Node.js's own require does: Next.js patches Module.prototype.require after start.
    const require = Object.assign((id) => this.require(id), {
      resolve: Object.assign((request, options) => Module._resolveFilename(request, this, false, options), {
        paths: (request) => Module._resolveLookupPaths(request, this),
      }),
      main: process.mainModule,
      extensions: Module._extensions,
      cache: Module._cache,
    });
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.once("exit", () => {
    for (const { key, script } of compiled) {
      // Written whole or not at all: other servers read the same directory.
      const partial = `${key}.${process.pid}`;
      try {
        fs.writeFileSync(partial, script.createCachedData());
        fs.renameSync(partial, key);
      } catch {
        fs.rmSync(partial, { force: true });
      }
    }
  });
}
