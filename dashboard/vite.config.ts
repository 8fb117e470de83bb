/**
 * Build of the dashboard (dashboard/README.md): Preact through @preact/preset-vite, every module
 * bundled (no request leaves the origin at run time), served by the API under /app, so the base is
 * /app/ and the output goes to dist/dashboard at the repository root (the Docker image copies dist/).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/app/',
  plugins: [preact()],
  // `vite --config dashboard/vite.config.ts`: live reloading at http://127.0.0.1:5173/app/ against
  // the API of `npm start` on its default port.
  server: { proxy: { '/graphql': 'http://127.0.0.1:3000' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard', import.meta.url)),
    emptyOutDir: true,
    // Hashed file names under assets/: the API serves them with a year of immutable caching.
    assetsDir: 'assets',
  },
});
