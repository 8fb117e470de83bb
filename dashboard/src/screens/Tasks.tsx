/**
 * Tasks: post tasks (pasted ASINs or a CSV file) and watch the newest tasks finish: while any is
 * queued or running the list is read again, 1 s after the last change and up to 15 s apart when
 * nothing moves (backoff ×1.5).
 */
import { useEffect, useState } from 'preact/hooks';
import { graphql } from '../graphql.ts';
import { usd, when } from '../components/format.ts';
import { ErrorNote } from '../components/Status.tsx';
import { useQuery } from '../components/use-query.ts';
import { PostTasksForm } from './PostTasksForm.tsx';

const TaskList = graphql(`
  query TaskList {
    tasks(first: 50) {
      totalCount
      edges { node { id asin marketplace tag status statusCode statusMessage cost createdAt completedAt product { title } } }
    }
  }
`);

const FIRST_DELAY = 1_000;
const MAX_DELAY = 15_000;

export function Tasks() {
  const list = useQuery(TaskList, {});
  const [delay, setDelay] = useState(FIRST_DELAY);
  const edges = list.data?.tasks.edges ?? [];
  const pending = edges.filter(({ node }) => node.status === 'queued' || node.status === 'running').length;
  const fingerprint = edges.map(({ node }) => node.status).join();
  useEffect(() => setDelay(FIRST_DELAY), [fingerprint]);
  useEffect(() => {
    if (pending === 0 || list.loading) return;
    const timer = setTimeout(() => {
      setDelay((d) => Math.min(MAX_DELAY, d * 1.5));
      void list.reload();
    }, delay);
    return () => clearTimeout(timer);
  }, [pending, list.loading, fingerprint, delay]);
  return (
    <section>
      <h1>Tasks</h1>
      <PostTasksForm onPosted={() => void list.reload()} />
      <h2>Newest tasks</h2>
      <p class="muted" aria-live="polite" data-testid="task-progress">
        {list.data ? `${list.data.tasks.totalCount} tasks; ${pending ? `${pending} in progress, refreshing` : 'none in progress'}` : ''}
      </p>
      <ErrorNote error={list.error} />
      <table data-testid="task-table">
        <thead><tr><th scope="col">Created</th><th scope="col">ASIN</th><th scope="col">Market</th><th scope="col">Tag</th><th scope="col">Status</th><th scope="col">Cost</th><th scope="col">Result</th></tr></thead>
        <tbody>
          {edges.map(({ node: t }) => (
            <tr key={t.id} data-status={t.status}>
              <td>{when(t.createdAt)}</td><td>{t.asin}</td><td>{t.marketplace}</td><td>{t.tag ?? ''}</td>
              <td class={`status-${t.status}`}>{t.status} ({t.statusCode})</td>
              <td>{usd(t.cost)}</td>
              <td><a href={`/app/tasks/${t.id}`}>{t.status === 'completed' ? (t.product?.title ?? 'open') : t.status === 'failed' ? t.statusMessage : 'details'}</a></td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
