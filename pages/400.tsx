/**
 * The page a request Next.js cannot %-decode gets (through pages/_error.tsx), and the one real page of the
 * Pages Router: Turbopack builds that router only when it has a page, and without it the error page.
 */
export default function BadRequest() {
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", padding: "2rem" }}>
      <h1>Bad request</h1>
      <p>The address is not valid. Check the link and try again.</p>
      <p>
        <a href="/">Start a new chat</a>
      </p>
    </main>
  );
}
