/**
 * useQuery: runs a typed GraphQL document when the component mounts and whenever `deps` change;
 * `reload` runs it again (after a mutation). The newest answer wins: an older request finishing
 * late is dropped.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { TadaDocumentNode } from 'gql.tada';
import { request } from '../graphql.ts';

export interface QueryState<Data> {
  data: Data | undefined;
  error: Error | undefined;
  loading: boolean;
  reload(): Promise<Data | undefined>;
}

export function useQuery<Data, Variables>(document: TadaDocumentNode<Data, Variables>, variables: Variables, deps: unknown[] = []): QueryState<Data> {
  const [data, setData] = useState<Data>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const serial = useRef(0);
  const run = useCallback(async () => {
    const mine = ++serial.current;
    setLoading(true);
    try {
      const answer = await request(document, variables);
      if (mine === serial.current) {
        setData(answer);
        setError(undefined);
      }
      return answer;
    } catch (e) {
      if (mine === serial.current) setError(e as Error);
      return undefined;
    } finally {
      if (mine === serial.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    void run();
  }, [run]);
  return { data, error, loading, reload: run };
}

/**
 * useQueries: runs one typed document once per element of `variables`, in parallel, when the
 * component mounts and whenever `deps` change; `data` holds the answers in the order of
 * `variables` once all have come. Any refusal is the `error` (the first one); the newest round wins.
 */
export function useQueries<Data, Variables>(document: TadaDocumentNode<Data, Variables>, variables: Variables[], deps: unknown[] = []): Omit<QueryState<Data[]>, 'reload'> {
  const [data, setData] = useState<Data[]>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const serial = useRef(0);
  useEffect(() => {
    const mine = ++serial.current;
    setLoading(true);
    Promise.all(variables.map((v) => request(document, v))).then(
      (answers) => {
        if (mine !== serial.current) return;
        setData(answers);
        setError(undefined);
      },
      (e: unknown) => {
        if (mine === serial.current) setError(e as Error);
      },
    ).finally(() => {
      if (mine === serial.current) setLoading(false);
    });
  }, deps);
  return { data, error, loading };
}
