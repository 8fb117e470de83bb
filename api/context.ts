/**
 * Koa state shared by middleware and routes.
 */
import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';
import type { AccountLimits } from '../core/rate-limits.js';

/** The authenticated account as routes see it. */
export interface AuthAccount {
  id: number;
  login: string;
  plan: string;
  keyId: number;
  /** Effective per-minute limits (account override, else plan default). */
  limits: AccountLimits;
}

export interface AppState {
  /** performance.now() when the request arrived. */
  startedAt: number;
  requestId: string;
  account?: AuthAccount;
  /** Set when the response is the stored first response of an Idempotency-Key: metered as a request without tasks or cost. */
  idempotentReplay?: boolean;
}

export type AppContext = ParameterizedContext<AppState> & RouterContext<AppState>;
