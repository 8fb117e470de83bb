/**
 * POST live (api-spec.md "Product endpoints"): one product read within the request.
 * A stored observation at most `max_age_minutes` old is returned at once; otherwise the page is
 * read through a `productTask` workflow within LIVE_BUDGET (60 s); when the budget runs out the
 * task answers 50301 and is refunded.
 */
import { AppError, TaskError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { tryCharge } from '../../core/ledger.js';
import { findFreshObservation, toProduct } from '../../core/observations.js';
import { planOf } from '../../core/pricing.js';
import { completeTaskFromObservation, failTask } from '../../core/tasks.js';
import type { AuthAccount } from '../context.js';
import { envelope, taskObject, type Envelope } from '../envelope.js';
import { fields, readAsin, readMarketplace, readOptional, taskArray } from '../validation/task-body.js';
import { RETENTION_MS, type ProductTaskDeps } from './product-tasks.js';

export async function live(deps: ProductTaskDeps, account: AuthAccount, body: unknown, startedAt: number): Promise<Envelope> {
  const [element] = taskArray(body, { exactlyOne: true });
  if (!planOf(account.plan).features.live) throw new AppError('FEATURE_NOT_AVAILABLE');
  const id = newTaskId();
  const path = ['v1', 'retail', 'product', 'live'];
  const data = { ...element!, api: 'retail', function: 'live' };
  let asin: string;
  let marketplace: string;
  let maxAgeMinutes: number;
  try {
    asin = readAsin(element!);
    marketplace = readMarketplace(element!).code;
    maxAgeMinutes = readOptional(element!, 'max_age_minutes', fields.maxAgeMinutes, 60);
  } catch (error) {
    // live carries exactly one task: when it is invalid, no task of the request is (HTTP 400).
    if (!(error instanceof TaskError)) throw error;
    throw AppError.fromTaskError(error);
  }
  const cost = planOf(account.plan).rates.live;
  const charged = await deps.prisma.$transaction(async (tx) => {
    const balance = await tryCharge(tx, { accountId: account.id, amount: cost, taskId: id, note: 'live' });
    if (balance === null) return false;
    await tx.task.create({
      data: { id, accountId: account.id, endpoint: 'live', asin, marketplace, data, cost: cost.toFixed(6), expiresAt: new Date(Date.now() + RETENTION_MS) },
    });
    return true;
  });
  if (!charged) throw new AppError('PAYMENT_REQUIRED');

  const fresh = maxAgeMinutes > 0 ? await findFreshObservation(deps.prisma, asin, marketplace, maxAgeMinutes * 60_000) : null;
  if (fresh) {
    await completeTaskFromObservation(deps.prisma, id, fresh.id);
  } else {
    const budgetMs = deps.config.LIVE_BUDGET;
    try {
      await deps.launcher.start({ taskId: id, asin, marketplace, budgetMs });
      const finished = await deps.launcher.waitFor(id, budgetMs);
      if (!finished) {
        await failTask(deps.prisma, id, 50301);
        await deps.launcher.cancel(id);
      }
    } catch (error) {
      deps.logger.error({ err: error, taskId: id }, 'live read failed');
      await failTask(deps.prisma, id, 50301);
    }
  }
  const task = await deps.prisma.task.update({ where: { id }, data: { collectedAt: new Date() }, include: { observation: true } });
  const result = task.statusCode === 20000 && task.observation ? [toProduct(task.observation)] : null;
  const code = task.state === 'completed' || task.state === 'failed' ? task.statusCode : 50301;
  return envelope(startedAt, [taskObject({ id, code, message: task.statusMessage, startedAt, cost: Number(task.cost), path, data, result })]);
}
