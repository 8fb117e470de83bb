/** The form of the Tasks screen: ASINs pasted or read from a CSV file, posted 100 at a time. */
import { useState } from 'preact/hooks';
import { graphql, request } from '../graphql.ts';
import { chunks, parseTaskLines } from '../components/asin-input.ts';
import { usd } from '../components/format.ts';
import { MarketplaceSelect } from '../components/MarketplaceSelect.tsx';

const PostTasks = graphql(`
  mutation PostTasks($tasks: [TaskPostInput!]!) {
    postTasks(tasks: $tasks) { cost tasksCount tasksError results { id statusCode statusMessage } }
  }
`);

export function PostTasksForm({ onPosted }: { onPosted(): void }) {
  const [text, setText] = useState('');
  const [marketplace, setMarketplace] = useState('com');
  const [tag, setTag] = useState('');
  const [postbackUrl, setPostbackUrl] = useState('');
  const [note, setNote] = useState<string>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const readFile = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (file) setText(await file.text());
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const postback = postbackUrl.trim() ? { postbackUrl: postbackUrl.trim() } : {};
    const tasks = parseTaskLines(text, marketplace, tag.trim() || undefined).map((t) => ({ ...t, ...postback }));
    if (tasks.length === 0) return;
    setBusy(true);
    setError(undefined);
    let accepted = 0;
    let cost = 0;
    const refused: string[] = [];
    try {
      for (const part of chunks(tasks)) {
        const answer = (await request(PostTasks, { tasks: part })).postTasks;
        cost += answer.cost;
        answer.results.forEach((r, i) => (r.statusCode < 40000 ? accepted++ : refused.push(`${part[i]!.asin}: ${r.statusMessage}`)));
      }
      setNote(`${accepted} of ${tasks.length} tasks accepted, charged ${usd(cost)}.${refused.length ? ` Refused: ${refused.join('; ')}` : ''}`);
      setText('');
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
      onPosted();
    }
  };
  return (
    <form onSubmit={submit} class="stack">
      <h2>Post tasks</h2>
      <label for="asins">ASINs (one per line, or <code>asin,marketplace,tag</code>)</label>
      <textarea id="asins" rows={5} value={text} onInput={(e) => setText(e.currentTarget.value)} placeholder={'B07CL39Z8Q\n0062796984,uk'} />
      <label for="csv-file">or a CSV file</label>
      <input id="csv-file" type="file" accept=".csv,text/csv,text/plain" onChange={(e) => void readFile(e.currentTarget)} />
      <div class="inline">
        <MarketplaceSelect id="task-marketplace" value={marketplace} onChange={setMarketplace} />
        <label for="task-tag">Tag</label>
        <input id="task-tag" value={tag} onInput={(e) => setTag(e.currentTarget.value)} maxLength={255} />
      </div>
      <label for="task-postback">Postback URL (optional: each finished task is POSTed there)</label>
      <input id="task-postback" type="url" size={50} value={postbackUrl} onInput={(e) => setPostbackUrl(e.currentTarget.value)} />
      <button type="submit" disabled={busy || !text.trim()}>Post tasks</button>
      {note ? <p role="status" data-testid="post-result">{note}</p> : null}
      {error ? <p class="error" role="alert">{error}</p> : null}
    </form>
  );
}
