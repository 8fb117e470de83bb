/**
 * Temporal signal and query definitions of the workflows, built from the names in core/domain
 * (clients may use the names directly; these add the argument and answer types).
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import {
  MONITOR_CONFIGURE_SIGNAL,
  MONITOR_RESUME_SIGNAL,
  MONITOR_STATE_QUERY,
  MONITOR_STOP_SIGNAL,
  type MonitorSettings,
  type MonitorStateView,
} from '../core/domain/subscription-messages.js';

/** Settings changed (frequency, and so the interval): the pending timer is re-planned at once. */
export const configureMonitorSignal = defineSignal<[MonitorSettings]>(MONITOR_CONFIGURE_SIGNAL);
/** The account was topped up: check the status now and read again if a read is due. */
export const resumeMonitorSignal = defineSignal(MONITOR_RESUME_SIGNAL);
/** The subscription was deleted: end the workflow. */
export const stopMonitorSignal = defineSignal(MONITOR_STOP_SIGNAL);
/** The workflow's carried state with its next read as an ISO time (for tests and operators). */
export const monitorStateQuery = defineQuery<MonitorStateView>(MONITOR_STATE_QUERY);
