/**
 * monitoring/add `alerts`: the rules a subscription carries (core/domain/alert-rules.ts). The zod
 * schema is the validator and the source of the field in /openapi.json. A refused rule fails its
 * task with 40501 naming the element and key and saying why, e.g. `Invalid field:
 * \`alerts[1].value\`. price_below needs a value (price in the marketplace currency)`:
 *
 * - `alerts` not a list, or more than MAX_ALERT_RULES rules → `alerts`;
 * - an element that is not an object, has other keys, or repeats an earlier rule (same type and
 *   value) → `alerts[i]`;
 * - an unknown `type` → `alerts[i].type`;
 * - a `value` missing, of the wrong type or out of its type's bounds, or given to a type that takes
 *   none → `alerts[i].value`;
 * - an `asin` that is not an ASIN → `alerts[i].asin`.
 * Then, by the element's form (`checkAlertsForm`): a keyword subscription takes only rank rules,
 * each naming one of its `track_asins` in `asin`; a product subscription takes only product rules,
 * without `asin` (`alerts[i].type` / `alerts[i].asin`).
 */
import { z } from 'zod';
import { ALERT_TYPES, ALERT_VALUE_RULES, MAX_ALERT_RULES, PRODUCT_ALERT_TYPES, RANK_ALERT_TYPES, alertValueProblem, isRankAlertType, type AlertRuleSpec } from '../domain/alert-rules.js';
import { DomainError } from '../errors.js';
import { asin, detailedFields } from './fields.js';

const valueHelp = ALERT_TYPES.map((type) => {
  const rule = ALERT_VALUE_RULES[type];
  return rule.takes === 'none' ? `${type}: none` : `${type}: ${rule.unit}, above ${rule.minExclusive}, at most ${rule.max}${rule.integer ? ', integer' : ''}`;
}).join('; ');

/** One rule of `alerts`. */
export const alertRule = z.strictObject({
  type: z.enum(ALERT_TYPES, { error: `type must be one of ${ALERT_TYPES.join(', ')}` }).meta({
    description: '`price_below` (the price falls below `value`), `price_drop_percent` (the price fell by at least `value` % since the last known price), `availability_change` (in stock / out of stock / preorder / back order), `buy_box_change` (the featured offer\'s seller), `bsr_below` (the rank falls below `value`), `bsr_change_percent` (the rank moved by at least `value` % either way), `content_change` (title, bullets or images). Keyword subscriptions: `rank_above` (the tracked ASIN\'s organic rank becomes better than `value`), `rank_below` (worse than `value`, or absent from the pages read), `rank_change` (the organic rank moved by at least `value` places), `sponsored_change` (the tracked ASIN gained or lost a sponsored slot).',
  }),
  value: z.number({ error: 'value must be a number' }).nullable().optional().meta({ description: `Threshold or percent, by type (${valueHelp}).` }),
  asin: asin.nullable().optional().meta({ description: 'Rank rules (keyword subscriptions) only: the tracked ASIN the rule judges, one of the subscription\'s `track_asins`. Product rules take none.' }),
}).meta({ id: 'AlertRuleInput', description: 'One alert rule. A rule fires once when its condition starts to hold, then again only after an observation outside it (hysteresis); a field that cannot be read never fires a rule.' });

/** monitoring/add `alerts`: 0..MAX_ALERT_RULES rules, each valid for its type, none repeated. */
export const alertRules = z.array(alertRule)
  .max(MAX_ALERT_RULES, { error: `at most ${MAX_ALERT_RULES} rules` })
  .superRefine((rules, ctx) => {
    const seen = new Map<string, number>();
    for (const [index, rule] of rules.entries()) {
      const value = rule.value ?? null;
      const problem = alertValueProblem(rule.type, value);
      if (problem) ctx.addIssue({ code: 'custom', path: [index, 'value'], message: problem });
      const key = `${rule.type}:${value}:${rule.asin ?? ''}`;
      const earlier = seen.get(key);
      if (earlier !== undefined) ctx.addIssue({ code: 'custom', path: [index], message: `the same rule as alerts[${earlier}]` });
      seen.set(key, index);
    }
  })
  .transform((rules): AlertRuleSpec[] => rules.map((rule) => ({ type: rule.type, value: rule.value ?? null, ...(rule.asin ? { asin: rule.asin } : {}) })))
  .meta({ description: `Change alerts of the subscription, at most ${MAX_ALERT_RULES}. Given: they replace the subscription's rules (a rule given again keeps its state); absent: unchanged; \`[]\`: none.` })
  // Last: `.meta()` returns a new schema, and the registry marks this very one.
  .register(detailedFields, { detailed: true });

/**
 * Checks a monitoring/add element's rules against its form: a product subscription takes the
 * product rule types without `asin`; a keyword subscription takes the rank rule types, each naming
 * one of `trackAsins` (the element's `track_asins`) in `asin`.
 * @throws DomainError INVALID_FIELD naming `alerts[i].type` or `alerts[i].asin` and saying why.
 */
export function checkAlertsForm(rules: readonly AlertRuleSpec[], form: { kind: 'product' } | { kind: 'search'; trackAsins: readonly string[] }): void {
  for (const [index, rule] of rules.entries()) {
    const name = (key: string) => `alerts[${index}].${key}`;
    if (form.kind === 'product') {
      if (isRankAlertType(rule.type)) throw DomainError.invalidField(name('type'), `${rule.type} is a rule of keyword subscriptions; product subscriptions take ${PRODUCT_ALERT_TYPES.join(', ')}`);
      if (rule.asin) throw DomainError.invalidField(name('asin'), `${rule.type} takes no asin`);
      continue;
    }
    if (!isRankAlertType(rule.type)) throw DomainError.invalidField(name('type'), `${rule.type} is a rule of product subscriptions; keyword subscriptions take ${RANK_ALERT_TYPES.join(', ')}`);
    if (!rule.asin) throw DomainError.invalidField(name('asin'), `${rule.type} needs the tracked ASIN it judges`);
    if (!form.trackAsins.includes(rule.asin)) throw DomainError.invalidField(name('asin'), `${rule.asin} is not among track_asins`);
  }
}
