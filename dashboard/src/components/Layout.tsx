/** The frame of every screen: the account line, the navigation and a logout button. */
import type { ComponentChildren } from 'preact';
import { useLocation } from 'preact-iso';
import { graphql } from '../graphql.ts';
import { usd } from './format.ts';
import { useQuery } from './use-query.ts';

const AccountLine = graphql(`query AccountLine { me { login balance } }`);

const LINKS = [
  ['/app', 'Overview'],
  ['/app/products', 'Products'],
  ['/app/tasks', 'Tasks'],
  ['/app/subscriptions', 'Subscriptions'],
  ['/app/usage', 'Usage'],
] as const;

export function Layout({ children, onLogout }: { children: ComponentChildren; onLogout(): void }) {
  const { path } = useLocation();
  const me = useQuery(AccountLine, {}, [path]);
  const current = (href: string) => (href === '/app' ? path === '/app' || path === '/app/' : path.startsWith(href));
  return (
    <div class="layout">
      <header class="top">
        <span class="brand">retail-data-api</span>
        <nav aria-label="Main">
          {LINKS.map(([href, label]) => (
            <a href={href} aria-current={current(href) ? 'page' : undefined}>{label}</a>
          ))}
        </nav>
        <span class="account">
          {me.data ? <>{me.data.me.login} · balance <strong data-testid="balance">{usd(me.data.me.balance)}</strong></> : null}
          <button type="button" onClick={onLogout}>Log out</button>
        </span>
      </header>
      <main>{children}</main>
    </div>
  );
}
