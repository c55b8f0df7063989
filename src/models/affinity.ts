import { createHash } from "node:crypto";
import type { ChatMessage } from "../core/model.ts";

/**
 * Which endpoint served a conversation last. Ollama reuses the KV cache of a byte-identical prompt prefix,
 * so the next turn of a briefing's tool loop is cheapest where the previous one ran; the router prefers
 * that endpoint when it is free, and takes any other free one rather than wait for it.
 */
export class AffinityMemory {
  private readonly endpoints = new Map<string, string>();

  constructor(private readonly capacity = 4096) {}

  get(key: string): string | undefined {
    return this.endpoints.get(key);
  }

  set(key: string, endpoint: string): void {
    this.endpoints.delete(key);
    this.endpoints.set(key, endpoint);
    if (this.endpoints.size > this.capacity) {
      const oldest = this.endpoints.keys().next().value;
      if (oldest !== undefined) this.endpoints.delete(oldest);
    }
  }
}

/**
 * A conversation is named by its model and opening messages (the system prompt and first user turn stay
 * fixed while the loop appends); undefined for a single message, which has no later turn to place.
 */
export function affinityKey(model: string, messages: ChatMessage[]): string | undefined {
  if (messages.length < 2) return undefined;
  const hash = createHash("sha256").update(model);
  for (const message of messages.slice(0, 2)) hash.update(`\u0000${message.role}\u0000${message.content}`);
  return hash.digest("base64url");
}
