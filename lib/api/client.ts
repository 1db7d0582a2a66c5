/** One page of a listing as the API sends it (docs/api.md, "Paging"), not the store's `Page` (lib/db/paging.ts): its items and the cursor of the page before it (null at the start). */
export interface ApiPage<T> {
  data: T[];
  next_before: string | null;
}

async function request<B>(path: string, init?: RequestInit): Promise<B> {
  const response = await fetch(path, {
    ...init,
    headers: { "content-type": "application/json", ...init?.headers },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error ?? `Request failed (HTTP ${response.status})`);
  return body as B;
}

/** Browser-side fetch of our JSON API: unwraps `{data}` and throws the server's `{error}` message. */
export async function api<T>(path: string, init?: RequestInit): Promise<T> {
  return (await request<{ data: T }>(path, init)).data;
}

/** One page of a listing: `limit` items before the `before` cursor (the latest ones without it). */
export function apiPage<T>(path: string, limit: number, before: string | null): Promise<ApiPage<T>> {
  const query = new URLSearchParams({ limit: String(limit), ...(before ? { before } : {}) });
  return request<ApiPage<T>>(`${path}${path.includes("?") ? "&" : "?"}${query}`);
}
