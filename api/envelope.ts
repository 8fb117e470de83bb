/**
 * The response envelope lives in `core/envelope.ts` (the worker's postbacks build it too);
 * re-exported here for the API's modules.
 */
export * from '../core/envelope.js';
