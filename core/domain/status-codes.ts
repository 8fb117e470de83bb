/**
 * The 18 status codes of api-spec.md "Errors": message, HTTP status at request level, and text.
 * GET /v1/appendix/errors serves this table as it is. This is the one place where the five-digit
 * codes are written: everything else names them by key (`STATUS.INVALID_FIELD`) or by the type
 * `StatusCode`. Pure module (no imports).
 */
/** One row of the table; `http_status` is what a REST request-level answer with this code uses. */
export interface StatusCodeRow {
  status_code: number;
  status_message: string;
  http_status: number;
  description: string;
}

/** The table, by key. */
export const STATUS_CODES = {
  OK: { status_code: 20000, status_message: 'Ok.', http_status: 200, description: 'Processed successfully.' },
  TASK_CREATED: { status_code: 20100, status_message: 'Task Created.', http_status: 200, description: 'task_post accepted the task.' },
  BAD_REQUEST: { status_code: 40000, status_message: 'Bad Request.', http_status: 400, description: 'Body not valid JSON or wrong shape; HTTP 413 for bodies over 1 MiB, HTTP 405 for a wrong method; at task level the task cannot be carried out as asked.' },
  TOO_MANY_TASKS: { status_code: 40001, status_message: 'Too many tasks in one request (max 100).', http_status: 400, description: 'More task objects than allowed.' },
  AUTH_FAILED: { status_code: 40100, status_message: 'Authentication failed.', http_status: 401, description: 'Header missing or malformed, or login and key do not match.' },
  KEY_REVOKED: { status_code: 40101, status_message: 'API key revoked.', http_status: 401, description: 'The key was revoked.' },
  ACCOUNT_DISABLED: { status_code: 40102, status_message: 'Account disabled.', http_status: 401, description: 'The account is disabled.' },
  PAYMENT_REQUIRED: { status_code: 40200, status_message: 'Payment Required. Insufficient balance.', http_status: 402, description: 'The balance does not cover the cost; HTTP 402 when no task of the request can be paid, otherwise only the unaffordable tasks fail.' },
  RATE_LIMITED: { status_code: 40202, status_message: 'Rate limit exceeded.', http_status: 429, description: 'Too many requests or tasks per minute for the account, or too many access requests from one IP; Retry-After gives seconds to wait.' },
  NOT_FOUND: { status_code: 40400, status_message: 'Not Found.', http_status: 404, description: 'Unknown endpoint, or unknown task, key or subscription id.' },
  TASK_NOT_READY: { status_code: 40401, status_message: 'Task not ready yet.', http_status: 200, description: 'task_get before completion.' },
  PRODUCT_NOT_FOUND: { status_code: 40402, status_message: 'Product not found on Retail.', http_status: 200, description: 'The product page does not exist on that marketplace; not charged.' },
  INVALID_FIELD: { status_code: 40501, status_message: 'Invalid field: `<name>`.', http_status: 400, description: 'Wrong type, format or value; the message names the field.' },
  UNKNOWN_MARKETPLACE: { status_code: 40502, status_message: 'Unknown marketplace.', http_status: 400, description: 'Not one of the 12 supported codes or aliases.' },
  INVALID_ASIN: { status_code: 40503, status_message: 'Invalid ASIN.', http_status: 400, description: 'The ASIN does not match ^[A-Z0-9]{10}$ after uppercasing.' },
  FEATURE_NOT_AVAILABLE: { status_code: 40600, status_message: 'Feature not available on your plan.', http_status: 403, description: 'Feature not enabled for the account.' },
  INTERNAL_ERROR: { status_code: 50000, status_message: 'Internal error.', http_status: 500, description: 'Unexpected error; retry allowed.' },
  SOURCE_UNAVAILABLE: { status_code: 50301, status_message: 'Source temporarily unavailable. Try again later.', http_status: 503, description: 'Data source blocked, unavailable or too slow; not charged, cost refunded automatically.' },
} as const satisfies Record<string, StatusCodeRow>;

/** The key of a row (`'INVALID_FIELD'`). */
export type StatusKey = keyof typeof STATUS_CODES;

/** Every status code of the spec: `20000 | 20100 | 40000 | ... | 50301`. */
export type StatusCode = (typeof STATUS_CODES)[StatusKey]['status_code'];

/** The code of each key: `STATUS.TASK_NOT_READY` is `40401`. */
export const STATUS = Object.fromEntries(Object.entries(STATUS_CODES).map(([key, row]) => [key, row.status_code])) as {
  readonly [K in StatusKey]: (typeof STATUS_CODES)[K]['status_code'];
};

/** The codes of field validation (api-spec.md "Errors"): a request whose every element fails with one of them fails as a whole. */
export const FIELD_CODES: ReadonlySet<StatusCode> = new Set([STATUS.INVALID_FIELD, STATUS.UNKNOWN_MARKETPLACE, STATUS.INVALID_ASIN]);

const rowOf = new Map<number, StatusCodeRow & { key: StatusKey }>(
  (Object.keys(STATUS_CODES) as StatusKey[]).map((key) => [STATUS_CODES[key].status_code, { ...STATUS_CODES[key], key }]),
);

/** True for a code of the table (e.g. one read back from the database). */
export function isStatusCode(code: number): code is StatusCode {
  return rowOf.has(code);
}

/**
 * A code read back from storage (the `status_code` column), checked against the table.
 * @throws Error for a number that is not a code of the table
 */
export function asStatusCode(code: number): StatusCode {
  if (!rowOf.has(code)) throw new Error(`unknown status code ${code}`);
  return code as StatusCode;
}

/** True for failure codes (40000 and above): what an envelope counts in `tasks_error`. */
export function isErrorCode(code: number): boolean {
  return code >= STATUS.BAD_REQUEST;
}

/** The message for a code; INVALID_FIELD names the field (`Invalid field: \`asin\`.`). */
export function statusMessage(code: StatusCode, field?: string): string {
  if (code === STATUS.INVALID_FIELD && field) return `Invalid field: \`${field}\`.`;
  return rowOf.get(code)?.status_message ?? STATUS_CODES.INTERNAL_ERROR.status_message;
}

/** The table key of a code. */
export function statusKeyOf(code: StatusCode): StatusKey {
  return rowOf.get(code)!.key;
}

/** The HTTP status the table gives a code at request level (api-spec.md "Errors"). */
export function httpStatusOf(code: StatusCode): number {
  return rowOf.get(code)!.http_status;
}
