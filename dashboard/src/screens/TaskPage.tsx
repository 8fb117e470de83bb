/**
 * One task: its state and, once completed, the Product it returned (what task_get returns). While
 * it is queued or running it is read again every 2 s.
 */
import { useEffect } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { usd, when } from '../components/format.ts';
import { ProductCard, ProductFields } from '../components/ProductCard.tsx';
import { ErrorNote, Loading } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';

const TaskQuery = graphql(`
  query TaskPage($id: ID!) {
    task(id: $id) {
      id asin marketplace tag status statusCode statusMessage cost createdAt completedAt reused endpoint
      product { ...ProductFields }
    }
  }
`, [ProductFields]);

export function TaskPage({ id }: { id: string }) {
  const { data, error, loading, reload } = useQuery(TaskQuery, { id }, [id]);
  const task = data?.task;
  const pending = task?.status === 'queued' || task?.status === 'running';
  useEffect(() => {
    if (!pending || loading) return;
    const timer = setTimeout(() => void reload(), 2_000);
    return () => clearTimeout(timer);
  }, [pending, loading, data]);
  return (
    <section>
      <h1>Task <code>{id}</code></h1>
      {loading && !data ? <Loading what="the task" /> : <ErrorNote error={error} />}
      {data && !task ? <p>No such task (unknown, another account's or expired).</p> : null}
      {task ? (
        <>
          <p aria-live="polite">
            {task.status} ({task.statusCode} {task.statusMessage}) · {task.endpoint} · created {when(task.createdAt)} · completed {when(task.completedAt)} · {usd(task.cost)}
            {task.reused ? ' · reused a stored observation' : ''}
          </p>
          {task.product ? <ProductCard product={task.product} /> : null}
          <p><a href={`/app/products/${task.marketplace}/${task.asin}`}>Price and rank history of {task.asin}</a></p>
        </>
      ) : null}
    </section>
  );
}
