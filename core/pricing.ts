/**
 * Plans and their price table (`rates`, USD per unit) and default rate limits
 * (api-spec.md "Limits": reported in user_data; numeric values are ours to set). The table and its
 * arithmetic are pure and live in core/domain/pricing.ts.
 */
export { PLANS, planOf, searchTaskPrice, taskPostPrice, type Plan, type PlanFeatures, type Rates, type TaskPriority } from './domain/pricing.js';
