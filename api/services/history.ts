/**
 * POST history (api-spec.md "Product endpoints"): stored observations of a product, newest first,
 * from every request or subscription; charged per valid element of the body.
 */
import { AppError, TaskError } from '../../core/errors.js';
import { newTaskId } from '../../core/ids.js';
import { tryCharge } from '../../core/ledger.js';
import { toProduct } from '../../core/observations.js';
import { planOf } from '../../core/pricing.js';
import type { AuthAccount } from '../context.js';
import { envelope, taskObject, type Envelope, type TaskObject } from '../envelope.js';
import { failRequestIfNoneValid, fields, readAsin, readMarketplace, readOptional, taskArray } from '../validation/task-body.js';
import type { ProductTaskDeps } from './product-tasks.js';

const DAY_MS = 86_400_000;

export async function history(deps: ProductTaskDeps, account: AuthAccount, body: unknown, startedAt: number): Promise<Envelope> {
  const elements = taskArray(body);
  const cost = planOf(account.plan).rates.history;
  const path = ['v1', 'retail', 'product', 'history'];
  const tasks: TaskObject[] = [];
  const errors: (TaskError | undefined)[] = [];
  let payable = 0;
  let paid = 0;
  for (const element of elements) {
    const id = newTaskId();
    const data = { ...element, api: 'retail', function: 'history' };
    try {
      const asin = readAsin(element);
      const marketplace = readMarketplace(element).code;
      const dateFrom = readOptional(element, 'date_from', fields.day, null);
      const dateTo = readOptional(element, 'date_to', fields.day, null);
      const limit = readOptional(element, 'limit', fields.historyLimit, 100);
      const offset = readOptional(element, 'offset', fields.historyOffset, 0);
      if (dateFrom && dateTo && dateFrom > dateTo) throw TaskError.invalidField('date_from');
      payable++;
      const balance = await deps.prisma.$transaction((tx) => tryCharge(tx, { accountId: account.id, amount: cost, taskId: id, note: 'history' }));
      if (balance === null) throw new TaskError(40200);
      paid++;
      const observedAt: { gte?: Date; lt?: Date } = {};
      if (dateFrom) observedAt.gte = new Date(`${dateFrom}T00:00:00Z`);
      if (dateTo) observedAt.lt = new Date(Date.parse(`${dateTo}T00:00:00Z`) + DAY_MS);
      const rows = await deps.prisma.observation.findMany({
        where: { asin, marketplace, observedAt },
        orderBy: [{ observedAt: 'desc' }, { id: 'desc' }],
        skip: offset,
        take: limit,
      });
      errors.push(undefined);
      tasks.push(taskObject({ id, code: 20000, startedAt, cost, path, data, result: rows.map(toProduct) }));
    } catch (error) {
      if (!(error instanceof TaskError)) throw error;
      errors.push(error);
      tasks.push(taskObject({ id, code: error.code, message: error.message, startedAt, path, data }));
    }
  }
  if (payable > 0 && paid === 0) throw new AppError('PAYMENT_REQUIRED');
  failRequestIfNoneValid(errors);
  return envelope(startedAt, tasks);
}
