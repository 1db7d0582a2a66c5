/** The same operations through the HTTP API of the production build, as a client sees them. */
import { randomUUID } from "node:crypto";
import { median } from "./measure";
import type { Results } from "./results";
import { alternate, type Built } from "./store";

function client(base: string, token: string) {
  return async function api<T = unknown>(method: string, url: string, body?: unknown): Promise<T & { next_before?: string | null }> {
    const response = await fetch(`${base}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = (await response.json()) as { data?: unknown; error?: string; next_before?: string | null };
    if (!response.ok) throw new Error(`${method} ${url}: HTTP ${response.status} ${json.error}`);
    return json as never;
  };
}

export async function httpBench(results: Results, runs: number, base: string, token: string, s: Built) {
  const api = client(base, token);
  const { sessionId, invocationIds, edited, size } = s;
  const path = `/api/sessions/${sessionId}`;
  const middleId = invocationIds[Math.floor(invocationIds.length / 2)];
  let marker = "";
  const [rewind, undo] = await alternate(
    runs,
    async () => {
      const answer = await api<{ data: { event: { invocation_id: string } } }>("POST", `${path}/rewind`, {
        rewind_before_invocation_id: middleId,
      });
      marker = answer.data.event.invocation_id;
    },
    () => api("POST", `${path}/rewind`, { rewind_before_invocation_id: marker }),
  );
  results.record("http: rewind before middle", size, rewind, "≤ 25 ms");
  results.record("http: undo that rewind", size, undo);
  const forks: string[] = [];
  const fork = async () =>
    forks.push((await api<{ data: { id: string } }>("POST", `${path}/fork`, { rewind_before_invocation_id: middleId })).data.id);
  results.record("http: fork before middle", size, await median(runs, fork), "≤ 150 ms");
  for (const id of forks) await api("DELETE", `/api/sessions/${id}`);
  const branch = edited[Math.floor(edited.length / 2)];
  const [switchOld, switchBack] = await alternate(
    runs,
    () => api("POST", `${path}/switch`, { invocation_id: branch.original }),
    () => api("POST", `${path}/switch`, { invocation_id: branch.sibling }),
  );
  results.record("http: switch version (and back)", size, (switchOld + switchBack) / 2, "≤ 50 ms");
  results.record("http: list versions", size, await median(runs, () => api("GET", `${path}/versions`)), "≤ 20 ms");
  results.record("http: the map's tree", size, await median(runs, () => api("GET", `${path}/tree`)));
  const invocation = (i: number) => {
    const id = `e-${randomUUID()}`;
    return ["user", "demo", "demo", "demo"].map((author, k) => ({
      invocation_id: id,
      author,
      content: { parts: [{ text: `${author} ${i}.${k}` }] },
      actions: { state_delta: { extra: i } },
    }));
  };
  results.record("http: append one invocation (4 events)", size, await median(runs, (i) => api("POST", `${path}/events`, invocation(i))));
  results.record("http: last page of 50 tasks", size, await median(runs, () => api("GET", `${path}/tasks?limit=50`)), "≤ 15 ms");
  let before: string | null | undefined;
  for (let seen = 0; seen < invocationIds.length / 2; seen += 50) {
    before = (await api("GET", `${path}/tasks?limit=50${before ? `&before=${before}` : ""}`)).next_before ?? before;
  }
  results.record(
    "http: a page of 50 tasks mid-chat",
    size,
    await median(runs, () => api("GET", `${path}/tasks?limit=50&before=${before}`)),
    "≤ 15 ms",
  );
  results.record(
    "http: last page of 50 effective events",
    size,
    await median(runs, () => api("GET", `${path}/events?view=effective&limit=50`)),
  );
  results.record("http: all tasks", size, await median(Math.min(runs, 5), () => api("GET", `${path}/tasks`)));
}
