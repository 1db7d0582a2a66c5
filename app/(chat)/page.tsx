import { Chat } from "@/components/chat/chat";
import { listAgents } from "@/lib/agent/registry";
import { attachmentLimits } from "@/lib/config";

export default function NewChatPage() {
  return <Chat key="new" session={null} agents={listAgents()} attachmentLimits={attachmentLimits()} />;
}
