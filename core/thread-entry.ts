/**
 * How a worker thread loads one of the service's modules: the TypeScript source through tsx when
 * the service runs from source (npm start, tests, benches), the compiled file under dist/ otherwise.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A `new Worker(filename, { execArgv })` pair. */
export interface ThreadEntry {
  filename: string;
  execArgv: string[];
}

/**
 * The entry of the thread module `<name>.ts` / `<name>.js` beside `base` (pass `import.meta.url`).
 * @param base URL of the module asking, which lies beside the thread module
 * @param name the thread module's file name without extension, e.g. `parse-thread`
 */
export function threadEntry(base: string, name: string): ThreadEntry {
  const ts = new URL(`./${name}.ts`, base);
  if (fs.existsSync(fileURLToPath(ts))) return { filename: ts.href, execArgv: ['--import', import.meta.resolve('tsx')] };
  return { filename: new URL(`./${name}.js`, base).href, execArgv: [] };
}
