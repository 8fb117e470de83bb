/**
 * Koa state shared by middleware and routes.
 */
import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { AuthAccount } from '../../core/authentication.js';

export type { AuthAccount };

export interface AppState {
  /** performance.now() when the request arrived. */
  startedAt: number;
  requestId: string;
  account?: AuthAccount;
  /** Set when the response is the stored first response of an Idempotency-Key: metered as a request without tasks or cost. */
  idempotentReplay?: boolean;
  /**
   * What a response that is not an envelope (a bulk upload's, an export) adds to the usage counters:
   * its tasks and cost (USD), under `endpoint` when given (else the route's name).
   */
  usage?: { endpoint?: string; tasks: number; cost: number };
}

export type AppContext = ParameterizedContext<AppState> & RouterContext<AppState>;
