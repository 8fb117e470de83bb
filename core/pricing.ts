/**
 * Plans and their price table (`rates`, USD per unit) and default rate limits
 * (api-spec.md "Limits": reported in user_data; numeric values are ours to set).
 */
export interface Rates {
  /** task_post, priority 1, per task. */
  task_post: number;
  /** task_post, priority 2, per task. */
  task_post_high: number;
  /** live, per task. */
  live: number;
  /** history, per body element. */
  history: number;
  /** monitoring, per delivered observation. */
  monitoring: number;
}

export interface Plan {
  name: string;
  rates: Rates;
  /** Default requests per minute per account. */
  requestsPerMinute: number;
  /** Default tasks per minute per account. */
  tasksPerMinute: number;
}

export const PLANS: Record<string, Plan> = {
  standard: {
    name: 'standard',
    rates: { task_post: 0.0015, task_post_high: 0.003, live: 0.004, history: 0.0005, monitoring: 0.001 },
    requestsPerMinute: 600,
    tasksPerMinute: 6000,
  },
  business: {
    name: 'business',
    rates: { task_post: 0.001, task_post_high: 0.002, live: 0.003, history: 0.0003, monitoring: 0.0007 },
    requestsPerMinute: 2000,
    tasksPerMinute: 20000,
  },
};

/** The plan named `name`, else `standard`. */
export function planOf(name: string): Plan {
  return PLANS[name] ?? PLANS.standard!;
}
