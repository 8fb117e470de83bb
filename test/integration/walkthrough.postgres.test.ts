import { defineWalkthrough } from './walkthrough.js';
import { createScratchDatabase } from '../support/env.js';
import { postgres } from '../support/prerequisites.js';

// Production mode: a fresh database on the real PostgreSQL (DATABASE_URL_TEST, default 127.0.0.1:5432).
defineWalkthrough('PostgreSQL', createScratchDatabase, [await postgres()]);
