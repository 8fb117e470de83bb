/**
 * Inputs and outputs shared by workflows, activities and the API. Plain data only: workflow
 * history carries ids, never HTML.
 */

/** Input of the `productTask` workflow (workflowId = task id). */
export interface ProductTaskInput {
  taskId: string;
  asin: string;
  /** Marketplace code (`com`, `de`, ...). */
  marketplace: string;
  /** Attempts of the source read before the task fails with 50301. */
  readAttempts: number;
  /** First retry delay of a failed read, ms. */
  retryInitialMs: number;
  /** For live reads: the whole read must finish within this many ms (api-spec.md: 60 s). */
  budgetMs?: number;
}

/** What the source-read activity returns: the stored observation's id and its status. */
export interface ReadProductResult {
  /** Stored observation id, as a decimal string (bigint is not JSON). */
  observationId: string;
  status: 'ok' | 'no_bsr' | 'not_found';
}

/** How a `productTask` workflow ended. */
export interface ProductTaskOutcome {
  taskId: string;
  statusCode: number;
  observationId: string | null;
}

/** Error type names raised by activities (ApplicationFailure.type). */
export const SOURCE_BLOCKED = 'SourceBlocked';
export const SOURCE_UNAVAILABLE = 'SourceUnavailable';
