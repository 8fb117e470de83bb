/**
 * Makes jsdom use the ES module instance of parse5 (import this module before `jsdom`).
 *
 * jsdom loads parse5 with `require("parse5")`. Node (>= 20.19) answers that with the ES module itself,
 * the instance `import 'parse5'` gets. Under tsx (how the worker and the benches run), tsx's CommonJS
 * hook compiles a second, CommonJS copy of parse5 for that `require`, which parses several times
 * slower. Putting the ES module into the require cache under the path jsdom resolves gives jsdom what
 * plain Node would give it. Nothing changes when jsdom was already loaded (it keeps its copy) or when
 * the cache already holds parse5.
 */
import Module, { createRequire } from 'node:module';
import * as parse5 from 'parse5';

const require = createRequire(import.meta.url);

function registerParse5(): void {
  let file: string;
  try {
    file = createRequire(require.resolve('jsdom')).resolve('parse5');
  } catch {
    return;
  }
  if (require.cache[file]) return;
  const m = new Module(file);
  m.filename = file;
  m.loaded = true;
  m.exports = parse5;
  require.cache[file] = m;
}

registerParse5();
