/**
 * The waitlist, offered instead of a sign-up while sign-ups are closed (SIGNUPS=waitlist): a plain form that works
 * without JavaScript; /waitlist answers by sending the visitor back to the home page with the outcome.
 */
export function WaitlistCard({ joined, error }: { joined?: string; error?: string }) {
  return (
    <section className="card" id="waitlist" aria-labelledby="waitlist-title">
      <h2 id="waitlist-title">Join the waitlist</h2>
      <p className="muted">Sign-ups are closed for now. Leave your address and you will hear when there is room.</p>
      {joined ? (
        <p className="notice" role="status">
          {`You're on the waitlist at position ${joined}.`}
        </p>
      ) : (
        <form className="inline-form" method="post" action="/waitlist">
          <div className="field">
            <label htmlFor="waitlist-email">Email</label>
            <input id="waitlist-email" type="email" name="email" required autoComplete="email" />
          </div>
          <button type="submit">Join</button>
        </form>
      )}
      {error ? (
        <p className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
