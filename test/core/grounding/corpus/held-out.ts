/**
 * The held-out corpus: written from the kinds, over the same planted days, and not used while tuning the gate
 * in issue 22's first part. Its second part read its six failures and fixed their kinds (the corpus test now
 * holds it to the targets), so the estimate for unseen sentences is the untouched check set's (untouched.ts).
 */
import type { CorpusSentence, LieKind } from "./sentences.ts";

const h = (day: CorpusSentence["day"], kind: LieKind, text: string): CorpusSentence => ({
  day,
  kind,
  text,
  honest: true,
});
const l = (day: CorpusSentence["day"], kind: LieKind, text: string): CorpusSentence => ({
  day,
  kind,
  text,
  honest: false,
});

export const HELD_OUT: CorpusSentence[] = [
  h("busy", "time", "Standup first, at 9:30, then the design review at eleven."),
  h("busy", "day", "Today you've got lunch with Sam at half twelve."),
  h("busy", "weather", "Partly cloudy skies today, topping out at 16."),
  h("busy", "weather", "Rain arrives tomorrow, with a 70% chance of it."),
  h("busy", "state", "The passport renewal is still overdue."),
  h("busy", "day", "Tomorrow's dentist appointment is at 10 on Harley Street."),
  h("busy", "quantity", "Once the gym is done at 7pm, nothing else is planned."),
  h("busy", "name", "Sam is meeting you at Dishoom."),
  l("busy", "day", "Your team standup is on Friday."),
  l("busy", "day", "The Q4 report was due last Monday."),
  l("busy", "state", "The gym session has been called off."),
  l("busy", "state", "You've completed Pay council tax."),
  l("busy", "weather", "Pack sunglasses: it's a bright sunny one."),
  l("busy", "weather", "Drizzle is likely around lunchtime today."),
  l("busy", "quantity", "Lunch with Sam is the only thing on your calendar."),
  l("busy", "quantity", "You have nothing before the 1:1 this afternoon."),
  l("busy", "name", "Your lunch with Sam and Olivia is at 12:30."),
  l("busy", "happening", "Sam texted to say he's running late."),
  l("busy", "coverage", "The forecast couldn't be loaded today."),
  l("busy", "time", "The gym is at eight tonight."),
  h("empty", "quantity", "Not a single meeting today."),
  h("empty", "coverage", "I wasn't able to get the forecast this morning."),
  l("empty", "weather", "Looks like a chilly, clear morning."),
  l("empty", "name", "Jamie from accounts wants a word today."),
  h("weekend", "day", "Tonight is dinner at Mum's at seven."),
  h("weekend", "weather", "Foggy tomorrow morning, so take care on the run."),
  l("weekend", "day", "Dinner at Mum's is tomorrow night."),
  l("weekend", "weather", "A stormy afternoon is on the cards."),
  l("weekend", "quantity", "The whole day is free."),
  l("weekend", "happening", "The market organisers emailed about a stall change."),
  h("rainy", "weather", "Heavy showers likely, so bring a raincoat."),
  h("rainy", "day", "The Acme call is this morning at 10."),
  l("rainy", "weather", "It'll clear up into a sunny afternoon."),
  l("rainy", "state", "You've already submitted the expense report."),
  l("rainy", "day", "The project sync is tomorrow afternoon."),
  l("rainy", "coverage", "Your calendar couldn't be synced this morning."),
  h("all-day", "weather", "Snow is falling, and it's about -1 right now."),
  h("all-day", "day", "The offsite fills today and tomorrow."),
  l("all-day", "weather", "Thunder is possible this evening."),
  l("all-day", "day", "Team dinner is on Friday."),
  l("all-day", "time", "Team dinner starts at quarter past six."),
  h("long-list", "count", "61 tasks are due today, 15 of them listed here."),
  l("long-list", "count", "Only four tasks are due today."),
  l("long-list", "happening", "The electrician replied about Thursday."),
  l("long-list", "state", "The design review has been postponed to tomorrow."),
];
