/**
 * The dashboard: the login screen until a key is stored, then the screens under /app, routed on
 * the path (the API answers every /app/... path with index.html). A key the API refuses later
 * (revoked) brings the login screen back with the reason.
 */
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { Layout } from './components/Layout.tsx';
import { onUnauthorized } from './graphql.ts';
import { forgetKey, storedKey } from './session.ts';
import { Login } from './screens/Login.tsx';
import { KeywordPage } from './screens/KeywordPage.tsx';
import { Keywords } from './screens/Keywords.tsx';
import { Overview } from './screens/Overview.tsx';
import { ProductPage } from './screens/ProductPage.tsx';
import { Products } from './screens/Products.tsx';
import { Subscriptions } from './screens/Subscriptions.tsx';
import { TaskPage } from './screens/TaskPage.tsx';
import { Tasks } from './screens/Tasks.tsx';
import { Usage } from './screens/Usage.tsx';
import { NotFound } from './screens/NotFound.tsx';

export function App() {
  const [key, setKey] = useState(storedKey());
  const [notice, setNotice] = useState<string>();
  const logout = (why?: string) => {
    forgetKey();
    setNotice(why);
    setKey(null);
  };
  useEffect(() => {
    onUnauthorized(key ? (message) => logout(`The API refused the key: ${message} Log in with another key.`) : undefined);
  }, [key]);
  if (!key) return <Login notice={notice} onLogin={(k) => { setNotice(undefined); setKey(k); }} />;
  return (
    <LocationProvider scope="/app">
      <Layout onLogout={() => logout()}>
        <Router>
          <Route path="/app" component={Overview} />
          <Route path="/app/" component={Overview} />
          <Route path="/app/products" component={Products} />
          <Route path="/app/products/:marketplace/:asin" component={ProductPage} />
          <Route path="/app/keywords" component={Keywords} />
          <Route path="/app/keywords/:id" component={KeywordPage} />
          <Route path="/app/tasks" component={Tasks} />
          <Route path="/app/tasks/:id" component={TaskPage} />
          <Route path="/app/subscriptions" component={Subscriptions} />
          <Route path="/app/usage" component={Usage} />
          <Route default component={NotFound} />
        </Router>
      </Layout>
    </LocationProvider>
  );
}
