/**
 * Plans and their price table (`rates`, USD per unit) and default rate limits (api-spec.md
 * "Limits": prices and limits are reported in user_data; the numeric values are ours to set), and
 * the price of each charged operation (api-spec.md "Limits", charging rules). Pure: no I/O.
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
  /** search task_post, priority 1, per results page posted: twice `task_post` (search-page-contract.md "API"). */
  search: number;
  /** search task_post, priority 2, per results page posted: twice `task_post_high`. */
  search_high: number;
  /** search live, per task (one page): twice `live`. */
  search_live: number;
  /** keyword monitoring, per results page delivered: twice `monitoring`. */
  search_monitoring: number;
}

/** The product rates of a plan; the search rates follow from them. */
type ProductRates = Omit<Rates, 'search' | 'search_high' | 'search_live' | 'search_monitoring'>;

/**
 * A plan's rates with its search rates: each twice the product rate it mirrors
 * (search-page-contract.md "API": search price per page = twice the product task price of the
 * plan; monitoring search = twice product monitoring). Amounts stay exact to the micro-dollar.
 */
function withSearchRates(rates: ProductRates): Rates {
  const twice = (usd: number): number => Math.round(usd * 2 * 1e6) / 1e6;
  return { ...rates, search: twice(rates.task_post), search_high: twice(rates.task_post_high), search_live: twice(rates.live), search_monitoring: twice(rates.monitoring) };
}

/** Features a plan may lack; using one answers 403 / 40600 (api-spec.md "Errors"). */
export interface PlanFeatures {
  /** POST live. */
  live: boolean;
  /** task_post priority 2. */
  highPriority: boolean;
}

export interface Plan {
  name: string;
  rates: Rates;
  features: PlanFeatures;
  /** Default requests per minute per account. */
  requestsPerMinute: number;
  /** Default tasks per minute per account. */
  tasksPerMinute: number;
}

export const PLANS: Record<string, Plan> = {
  basic: {
    name: 'basic',
    rates: withSearchRates({ task_post: 0.0012, task_post_high: 0.0024, live: 0.004, history: 0.0005, monitoring: 0.001 }),
    features: { live: false, highPriority: false },
    requestsPerMinute: 120,
    tasksPerMinute: 1200,
  },
  standard: {
    name: 'standard',
    rates: withSearchRates({ task_post: 0.0015, task_post_high: 0.003, live: 0.004, history: 0.0005, monitoring: 0.001 }),
    features: { live: true, highPriority: true },
    requestsPerMinute: 600,
    tasksPerMinute: 6000,
  },
  business: {
    name: 'business',
    rates: withSearchRates({ task_post: 0.001, task_post_high: 0.002, live: 0.003, history: 0.0003, monitoring: 0.0007 }),
    features: { live: true, highPriority: true },
    requestsPerMinute: 2000,
    tasksPerMinute: 20000,
  },
};

/** The plan named `name`, else `standard`. */
export function planOf(name: string): Plan {
  return PLANS[name] ?? PLANS.standard!;
}

/** Task priority of task_post (api-spec.md "Product endpoints"): 1 normal, 2 high. */
export type TaskPriority = 1 | 2;

/** USD price of one task_post task of `priority` (high priority costs more). */
export function taskPostPrice(rates: Rates, priority: TaskPriority): number {
  return priority === 2 ? rates.task_post_high : rates.task_post;
}


/**
 * USD price of one search task_post task: its page rate (`search`, or `search_high` at priority 2)
 * times the results pages posted (1-5), exact to the micro-dollar.
 */
export function searchTaskPrice(rates: Rates, priority: TaskPriority, pages: number): number {
  const perPage = priority === 2 ? rates.search_high : rates.search;
  return Math.round(perPage * pages * 1e6) / 1e6;
}
