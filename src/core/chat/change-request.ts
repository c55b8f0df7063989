/**
 * Whether the user's own words ask for a change. In a follow-up to a briefing, a change the user did not
 * ask for waits for their Confirm like a deletion: the model is answering a question, not taking orders.
 */
const CHANGE_WORDS =
  /\b(?:add|adding|create|make|new|schedule|book|remind|put|set|mark|tick|check off|complete|finish|done|close|delete|remove|drop|cancel|move|change|update|edit|rename|reschedule|postpone|push|bump|shift|save|note down|write down|jot|log|record|plan|prioriti[sz]e|archive|pause|resume|reopen)\b/iu;

export function asksForChange(text: string): boolean {
  return CHANGE_WORDS.test(text);
}
