// GET /s/{token} against the authenticated download of the same file, on a running service:
//   node dist/bench/share-download.js http://127.0.0.1:3000 alice <password> [rounds] [requests]
// Logs in, makes a share link of the user's first document, then alternates rounds of sequential
// downloads of each route and prints the median time per download and the ratio (share / auth).

async function json(response: Response): Promise<Record<string, unknown>> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  return (await response.json()) as Record<string, unknown>;
}

async function timeDownloads(url: string, headers: Record<string, string>, count: number): Promise<number> {
  const started = performance.now();
  for (let index = 0; index < count; index++) {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    await response.arrayBuffer();
  }
  return (performance.now() - started) / count;
}

const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const [base = 'http://127.0.0.1:3000', username = 'alice', password = '', roundsText = '7', countText = '200'] =
    process.argv.slice(2);
  const rounds = Number(roundsText);
  const count = Number(countText);
  const login = await json(
    await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    }),
  );
  const auth = { authorization: `Bearer ${String(login.token)}` };
  const list = await json(await fetch(`${base}/api/documents?limit=1&sort=title`, { headers: auth }));
  const [document] = list.documents as { id: string; fileSize: number }[];
  const share = await json(
    await fetch(`${base}/api/documents/${document.id}/shares`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresAt: new Date(Date.now() + 86_400_000).toISOString() }),
    }),
  );
  const authenticated: number[] = [];
  const shared: number[] = [];
  for (let round = 0; round < rounds; round++) {
    authenticated.push(await timeDownloads(`${base}/api/documents/${document.id}/content`, auth, count));
    shared.push(await timeDownloads(`${base}/s/${String(share.token)}`, {}, count));
  }
  const [a, s] = [median(authenticated), median(shared)];
  console.log(
    JSON.stringify({
      fileBytes: document.fileSize,
      rounds,
      requestsPerRound: count,
      authenticatedMsPerDownload: Number(a.toFixed(3)),
      shareMsPerDownload: Number(s.toFixed(3)),
      // Throughput ratio: share downloads per second over authenticated downloads per second.
      ratio: Number((a / s).toFixed(3)),
    }),
  );
}

await main();
