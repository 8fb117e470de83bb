/**
 * Error type names activities raise (Temporal `ApplicationFailure.type`): workflows and the
 * retry policies tell failures apart by these names, never by message text.
 */

/**
 * The source answered with a robot check, an error page or a degraded page on every identity the
 * read tried (SOURCE_ATTEMPTS): not retried by Temporal.
 */
export const SOURCE_BLOCKED = 'SourceBlocked';
/**
 * The page could not be fetched: on every identity tried (timeouts, proxy errors: not retried), or
 * for want of a browser (retried unless permanent).
 */
export const SOURCE_UNAVAILABLE = 'SourceUnavailable';
/** Every proxy of the marketplace is quarantined: the read fails at once, not retried. */
export const NO_SOURCE_IDENTITY = 'NoSourceIdentity';
/** A monitoring run's page must not be read: not reserved, refunded, or its subscription deleted. */
export const MONITORING_RUN_CLOSED = 'MonitoringRunClosed';
/** The account already has WEBHOOK_ACCOUNT_SLOTS deliveries under way in this worker: retried later. */
export const WEBHOOK_ACCOUNT_BUSY = 'WebhookAccountBusy';
