import { A2A_PROTOCOL_VERSION, A2A_VERSION_HEADER, AgentCard } from "@a2a-js/sdk";
import { A2A_LEGACY_PROTOCOL_VERSION, duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { parseLegacyAgentCard } from "@a2a-js/sdk/compat/v0_3/client";
import type { Agent } from "@/lib/agent/types";
import { ownOrigin } from "@/lib/api/handler";
import { namespacedA2AUrl } from "@/lib/api/kagent";
import { DEMO_AGENT } from "@/lib/session/names";

const skills = (agent: Agent) => [
  {
    id: "state",
    name: "Session state",
    description: "Set and read session state values.",
    tags: ["state"],
    examples: ["set color to red", "what is color?"],
  },
  {
    id: "files",
    name: "Files",
    description: "Save and load versioned text files.",
    tags: ["artifacts"],
    examples: ["save file notes.txt with content hello", "load file notes.txt"],
  },
  ...(agent.name === DEMO_AGENT
    ? [
        {
          id: "recap",
          name: "Recap",
          description: "List what the user said in the effective history.",
          tags: ["history"],
          examples: ["recap"],
        },
      ]
    : []),
  {
    id: "attachments",
    name: "Attachments",
    description:
      "Send files with a message as file parts (bytes, or the URL of an upload from POST /api/uploads): images, PDFs and text files become files of the chat, which rewind, fork and share follow.",
    tags: ["files", "attachments"],
  },
  {
    id: "rewind",
    name: "Rewind",
    description:
      "Send metadata.kagent_rewind_before_invocation_id (with the session as contextId) to rewind the session first; without text the answer is the effective history.",
    tags: ["rewind"],
  },
];

/**
 * The agent's card as v0.3 JSON (with `url`, `preferredTransport`, `security`): Retrace's own words
 * for the agent, which the SDK's translator turns into the v1.0 card.
 */
function legacyCard(agent: Agent, origin: string) {
  return {
    protocolVersion: A2A_LEGACY_PROTOCOL_VERSION,
    name: agent.name,
    description: agent.description,
    url: `${origin}/api/a2a/${encodeURIComponent(agent.name)}`,
    preferredTransport: "JSONRPC",
    // The same endpoint where kagent's UI posts, under the agent's namespace (docs/api.md, "kagent's UI").
    additionalInterfaces: [{ url: namespacedA2AUrl(origin, agent.name), transport: "JSONRPC" }],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false },
    // Files of any type are kept; a model reads these (docs/semantics.md, "Attachments").
    defaultInputModes: ["text/plain", "image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: skills(agent),
    securitySchemes: {
      guestToken: {
        type: "http",
        scheme: "bearer",
        bearerFormat: "JWT",
        description:
          `POST ${origin}/api/auth/guest answers {"data":{"token"}}; send it as "Authorization: Bearer <token>". ` +
          "An account's personal API token (rtk_…, from the account menu) is sent the same way.",
      },
    },
    security: [{ guestToken: [] }],
  };
}

/**
 * The v1.0 card: one JSON-RPC endpoint at the request's origin, advertised for v1.0 and for v0.3, at its own
 * URL first and then at its namespaced one.
 */
export function agentCard(agent: Agent, origin: string): AgentCard {
  const cached = cards.get(agent);
  if (cached?.origin === origin) return cached.card;
  const card = buildCard(agent, origin);
  cards.set(agent, { origin, card });
  return card;
}

/**
 * Every A2A request needs its agent's card (the transport checks the version against it), and building it
 * through the SDK's translator cost ~0.3 ms a turn: each agent keeps its last origin's. One entry, not one
 * per origin: the Host header is the caller's to choose.
 */
const cards = new WeakMap<Agent, { origin: string; card: AgentCard }>();

function buildCard(agent: Agent, origin: string): AgentCard {
  const legacy = legacyCard(agent, origin);
  const at = (url: string) =>
    duplicateInterfacesForLegacy([{ url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }], ["JSONRPC"]);
  return {
    ...parseLegacyAgentCard(legacy),
    supportedInterfaces: [legacy.url, ...legacy.additionalInterfaces.map((i) => i.url)].flatMap(at),
  };
}

/**
 * The public card (docs/api.md, "A2A"), shaped like the SDK's own card handler answers: v1.0 JSON for a caller
 * that sends `A2A-Version: 1.0`, else the v0.3 card with the v1.0 interfaces embedded.
 */
export function agentCardResponse(agent: Agent, request: Request): Response {
  const origin = ownOrigin(request);
  const version = request.headers.get(A2A_VERSION_HEADER) || A2A_LEGACY_PROTOCOL_VERSION;
  const card = AgentCard.toJSON(agentCard(agent, origin)) as { supportedInterfaces: unknown };
  const body = version.startsWith("0.") ? { ...legacyCard(agent, origin), supportedInterfaces: card.supportedInterfaces } : card;
  return Response.json(body, { headers: { vary: A2A_VERSION_HEADER } });
}
