/**
 * The frame of every screen: a skip link, the account line, the navigation and a logout button.
 * After a navigation the focus moves to the new screen's content, as a page load would.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { graphql } from '../graphql.ts';
import { usd } from './format.ts';
import { useQuery } from './use-query.ts';

const AccountLine = graphql(`query AccountLine { me { login balance } }`);

const LINKS = [
  ['/app', 'Overview'],
  ['/app/products', 'Products'],
  ['/app/keywords', 'Keywords'],
  ['/app/tasks', 'Tasks'],
  ['/app/subscriptions', 'Subscriptions'],
  ['/app/usage', 'Usage'],
] as const;

export function Layout({ children, onLogout }: { children: ComponentChildren; onLogout(): void }) {
  const { path } = useLocation();
  const me = useQuery(AccountLine, {}, [path]);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [path]);
  const current = (href: string) => (href === '/app' ? path === '/app' || path === '/app/' : path.startsWith(href));
  return (
    <div class="layout">
      <a class="skip" href="#main">Skip to content</a>
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
      <main id="main" ref={main} tabIndex={-1}>{children}</main>
    </div>
  );
}
