import Link from "next/link";

export const dynamic = "force-dynamic";

const EXAMPLES = [
  "Tell me when the iPhone 18 release date is announced",
  "When does Postgres 19 beta ship?",
  "Alert me when tickets for the next PyCon go on sale",
];

export default async function Home({ searchParams }: { searchParams: Promise<{ joined?: string; error?: string }> }) {
  const { joined, error } = await searchParams;
  return (
    <main>
      <h1>Watch</h1>
      <p>
        Describe something you want to keep an eye on. An AI agent checks the web for you with grounded search, decides
        when your condition is met, picks its own next check, and tells you by email or signed webhook.
      </p>
      <ul>
        {EXAMPLES.map((e) => (
          <li key={e}>{e}</li>
        ))}
      </ul>
      <section className="card" aria-labelledby="waitlist-title">
        <h2 id="waitlist-title">Join the waitlist</h2>
        {joined ? (
          <p className="notice" role="status">
            You&apos;re on the waitlist at position {joined}.
          </p>
        ) : null}
        {error ? (
          <p className="notice" role="alert">
            {error}
          </p>
        ) : null}
        <form className="inline" method="post" action="/waitlist">
          <label>
            Email
            <input type="email" name="email" required autoComplete="email" />
          </label>
          <button type="submit">Join</button>
        </form>
      </section>
      <p>
        <Link href="/explore">Browse public watches</Link> · <Link href="/docs">API documentation</Link>
      </p>
    </main>
  );
}
