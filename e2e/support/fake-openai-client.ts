import type { APIRequestContext } from "@playwright/test";

const base = `http://127.0.0.1:${process.env.FAKE_OPENAI_PORT ?? 3211}`;

/** A file the model received: an image or PDF data URL of a user message, by its bytes' SHA-256. */
interface ModelFile {
  type: "image_url" | "file";
  mediaType: string;
  filename: string | null;
  size: number;
  sha256: string;
}

export interface ModelRequest {
  body: { model: string; messages: { role: string; content: unknown }[]; stream_options?: { include_usage?: boolean } };
  files: ModelFile[];
  aborted: boolean;
  /** What the fake reported it used (OpenAI's names), null when the request was not asked for usage. */
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

/** The fake OpenAI-compatible server the suite starts: what the app sent to "the model". */
export const fakeModel = {
  async reset(request: APIRequestContext) {
    await request.post(`${base}/__reset`);
  },
  async requests(request: APIRequestContext): Promise<ModelRequest[]> {
    return (await request.get(`${base}/__requests`)).json();
  },
};

/** Every text the model was shown, by role, from one request. */
export function shownTexts(request: ModelRequest, role: string): string[] {
  return request.body.messages
    .filter((m) => m.role === role)
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
}
