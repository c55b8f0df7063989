/**
 * A planted day in the real database (the fixture's Monday 2 June 2025 in London: the dentist at 09:00, a
 * design review from 15:00 to 16:00, "Renew passport" due today at 14:30, "File expenses" overdue since
 * Friday, a partly cloudy 8–16 °C with a 20 % chance of rain, light rain tomorrow) and a briefing a
 * scripted model writes of it: honest sentences and one lie of every kind the gate must stop. The adapter
 * tests (CLI, Telegram, Slack) deliver it and check what reaches the user.
 */
import type { User } from "../../../../src/core/domain.ts";
import { createEvent, type TestStore } from "../../../helpers/test-store.ts";
import { seedEvent, seedTasks, seedWeather } from "../../fixture.ts";

export async function seedNaturalDay(store: TestStore, user: User): Promise<void> {
  await seedTasks(store, user);
  await seedWeather(store);
  await seedEvent(store, user, "Dentist", "2025-06-02T08:00:00Z");
  await createEvent(store, user.id, {
    title: "Design review",
    startsAt: new Date("2025-06-02T14:00:00Z"),
    endsAt: new Date("2025-06-02T15:00:00Z"),
    timeZone: user.timeZone,
  });
}

export const HONEST_SENTENCES = [
  "Your dentist appointment is at nine this morning.",
  "The design review runs from 3 to 4 this afternoon.",
  '"Renew passport" is due today at 14:30.',
  '"File expenses" has been overdue since Friday.',
  "Expect a partly cloudy day, 8 to 16 degrees.",
  "Tomorrow brings light rain.",
];

/** One lie of each kind, keyed by kind. */
export const LIES: Record<string, string> = {
  day: "The design review is tomorrow.",
  state: 'You already finished "Renew passport".',
  weather: "Rain this afternoon, so take an umbrella.",
  coverage: "The weather service is unavailable this morning.",
  quantity: "The dentist is your only appointment today.",
  name: "The design review with Marcus should be quick.",
  happening: "The dentist's office emailed you to confirm.",
  time: "The dentist is at half past ten.",
  count: "You have three tasks due today.",
};

/** The draft: honest sentences with the lies woven between them. */
export function naturalDraft(): string {
  const lies = Object.values(LIES);
  const sentences: string[] = [];
  for (let index = 0; index < Math.max(lies.length, HONEST_SENTENCES.length); index += 1) {
    const honest = HONEST_SENTENCES[index];
    const lie = lies[index];
    if (honest) sentences.push(honest);
    if (lie) sentences.push(lie);
  }
  return sentences.join(" ");
}

/** The words of a sentence as a platform may render it: quotes and markup aside. */
export function plain(text: string): string {
  return text.replace(/[“”"*_`]/g, "").replace(/\s+/g, " ");
}
