export default function Home() {
  return (
    <main>
      <h1>Watch</h1>
      <p>Describe what you want to keep an eye on; an AI agent checks the web and tells you when it happens.</p>
      <p>
        <a href="/docs">API documentation</a>
      </p>
    </main>
  );
}
