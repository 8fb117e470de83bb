/**
 * Koa state shared by middleware and routes.
 */
import type { ParameterizedContext } from 'koa';
import type { RouterContext } from '@koa/router';

/** The authenticated account as routes see it. */
export interface AuthAccount {
  id: number;
  login: string;
  plan: string;
  keyId: number;
}

export interface AppState {
  /** performance.now() when the request arrived. */
  startedAt: number;
  requestId: string;
  account?: AuthAccount;
}

export type AppContext = ParameterizedContext<AppState> & RouterContext<AppState>;
