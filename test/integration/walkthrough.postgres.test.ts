import { defineWalkthrough } from './walkthrough.js';
import { createScratchDatabase } from '../support/env.js';

// Production mode: a fresh database on the real PostgreSQL (DATABASE_URL_TEST, default 127.0.0.1:5432).
defineWalkthrough('PostgreSQL', createScratchDatabase);
