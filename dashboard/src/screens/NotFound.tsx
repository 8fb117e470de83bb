export function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p><a href="/app">Back to the overview</a></p>
    </section>
  );
}
