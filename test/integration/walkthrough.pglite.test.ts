import { defineWalkthrough } from './walkthrough.js';

// Embedded default: no DATABASE_URL, PGlite served on a local socket in DATA_DIR.
defineWalkthrough('embedded PGlite', async () => ({ url: undefined, drop: async () => undefined }));
