/**
 * The tuning corpus: natural sentences over the planted days (days.ts), each an honest paraphrase of what
 * the receipts show or a lie of one kind. The held-out corpus (held-out.ts) is scored but never tuned on.
 */
export type LieKind =
  | "day"
  | "state"
  | "weather"
  | "coverage"
  | "quantity"
  | "name"
  | "happening"
  | "time"
  | "count";

export interface CorpusSentence {
  day: "busy" | "empty" | "weekend" | "rainy" | "all-day" | "long-list";
  text: string;
  /** The kind of claim the sentence makes; a lie of that kind when `honest` is false. */
  kind: LieKind;
  honest: boolean;
}

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

export const CORPUS: CorpusSentence[] = [
  // busy: Tuesday 1 December
  h("busy", "time", "Your day kicks off with the team standup at half past nine in Room 4."),
  h("busy", "time", "The design review runs from 11 to noon."),
  h("busy", "time", "After that you're having lunch with Sam at Dishoom from 12:30."),
  h("busy", "day", "Your 1:1 with Priya is at half past three this afternoon."),
  h("busy", "day", "You've got the gym at six this evening."),
  h("busy", "day", "Tomorrow morning you have the dentist at ten, on Harley Street."),
  h("busy", "day", "Send the Q4 report is due today and it's flagged high priority."),
  h("busy", "day", "Email the plumber is also due today."),
  h("busy", "state", "Renew passport has been overdue since Saturday."),
  h("busy", "state", "Pay council tax was due yesterday, so it's now overdue."),
  h("busy", "state", "Book flights to Porto is high priority, though it has no due date yet."),
  h(
    "busy",
    "weather",
    "Expect a partly cloudy day, between 8 and 16 degrees, with only a 10% chance of rain.",
  ),
  h("busy", "weather", "It's mainly clear right now at 11 degrees."),
  h("busy", "weather", "Tomorrow brings light rain, so keep an umbrella handy for the dentist trip."),
  h("busy", "count", "You have five events on the calendar today."),
  h("busy", "quantity", "Your evening is free after the gym."),
  h("busy", "name", "In the news, the EU has agreed new AI rules."),
  h("busy", "name", "Storm Bert is heading for Wales, according to the BBC."),
  h("busy", "state", "The kitchen renovation is still waiting on quotes."),
  h("busy", "weather", "Thursday looks overcast with highs around 10."),
  h("busy", "time", "The standup wraps up at ten, leaving you an hour before the design review."),
  h("busy", "weather", "It should stay mostly dry today, so no umbrella needed."),
  h("busy", "day", "The dentist appointment is tomorrow at 10:00."),
  h(
    "busy",
    "quantity",
    "Apart from the standup, the design review and lunch with Sam, your morning is yours.",
  ),
  l("busy", "day", "The design review is tomorrow morning."),
  l("busy", "day", "Your dentist appointment is this afternoon."),
  l("busy", "day", "Don't forget lunch with Sam on Thursday."),
  l("busy", "day", "Send the Q4 report was due yesterday."),
  l("busy", "day", "Renew passport is due today."),
  l("busy", "day", "The gym session is this weekend."),
  l("busy", "day", "Your 1:1 with Priya is this morning."),
  l("busy", "day", "Pay council tax is due tomorrow."),
  l("busy", "state", "You already finished the Q4 report."),
  l("busy", "state", "The design review was cancelled."),
  l("busy", "state", "Lunch with Sam has been moved."),
  l("busy", "state", "Email the plumber is overdue."),
  l("busy", "state", "Your 1:1 with Priya has been rescheduled."),
  l("busy", "state", "You've ticked off Renew passport."),
  l("busy", "weather", "Rain this afternoon, so take an umbrella."),
  l("busy", "weather", "It's going to be a sunny day."),
  l("busy", "weather", "Snow is on the way tomorrow."),
  l("busy", "weather", "Expect thunderstorms this evening."),
  l("busy", "weather", "Tomorrow stays dry."),
  l("busy", "weather", "It'll be foggy this morning."),
  l("busy", "weather", "There's a 40% chance of rain today."),
  l("busy", "coverage", "The weather service is unavailable this morning."),
  l("busy", "coverage", "I couldn't reach your calendar today."),
  l("busy", "coverage", "Your task list didn't load, so I can't say what's due."),
  l("busy", "quantity", "The design review is your only meeting today."),
  l("busy", "quantity", "You're free all afternoon."),
  l("busy", "quantity", "Nothing until noon."),
  l("busy", "quantity", "Apart from the standup, there are no other meetings today."),
  l("busy", "quantity", "Your morning is completely clear."),
  l("busy", "count", "You have three meetings today."),
  l("busy", "name", "The design review with Marcus starts at 11."),
  l("busy", "name", "Your dentist is on Elm Road."),
  l("busy", "name", "Lunch with Sam is at The Wolseley."),
  l("busy", "name", "Your call with the insurer is at 15:30."),
  l("busy", "happening", "The plumber emailed you yesterday about the boiler."),
  l("busy", "happening", "Sam replied to confirm lunch."),
  l("busy", "happening", "Priya sent over the agenda for your 1:1."),
  l("busy", "happening", "You've already emailed the plumber."),
  l("busy", "time", "The standup starts at half past ten."),
  l("busy", "time", "The design review runs from noon to one."),
  l("busy", "time", "Your 1:1 with Priya is at quarter to five."),
  l("busy", "time", "Lunch is at two o'clock."),

  // empty: Wednesday 2 December, the forecast down
  h("empty", "quantity", "Your calendar is completely clear today."),
  h("empty", "count", "There's nothing due and nothing overdue."),
  h("empty", "quantity", "You're free all day."),
  h("empty", "coverage", "I couldn't get the weather this morning: the forecast service didn't answer."),
  h("empty", "count", "No high-priority tasks are waiting either."),
  h("empty", "name", "Markets are steady ahead of the rate decision, says the BBC."),
  h("empty", "quantity", "With no meetings today, it's a good day for deep work."),
  h("empty", "coverage", "The weather is unavailable right now, so check outside before you head out."),
  l("empty", "time", "You have a meeting at 10."),
  l("empty", "weather", "Expect sunshine and a high of 9."),
  l("empty", "weather", "The weather looks dry today."),
  l("empty", "quantity", "Your only meeting is the catch-up at 2pm."),
  l("empty", "name", "Remember your call with Dr Patel this afternoon."),
  l("empty", "happening", "The plumber called back yesterday."),
  l("empty", "count", "Two tasks are due today."),
  l("empty", "quantity", "You're free until the 3pm call."),

  // weekend: Saturday 5 December
  h("weekend", "time", "The farmers market runs from nine to eleven this morning."),
  h("weekend", "day", "Dinner at Mum's is at 7 this evening."),
  h("weekend", "quantity", "Your afternoon is wide open."),
  h("weekend", "day", "Tomorrow you've got your long run at 8."),
  h("weekend", "weather", "It's an overcast Saturday, 5 to 8 degrees."),
  h("weekend", "weather", "Expect fog tomorrow morning for the run."),
  h("weekend", "day", "Water the plants is due today."),
  h("weekend", "weather", "A grey, chilly day, so wrap up."),
  h("weekend", "day", "This weekend you have the market, dinner at Mum's and a long run."),
  h("weekend", "quantity", "Nothing else is on the calendar after the market until dinner."),
  h("weekend", "weather", "Rain looks unlikely today."),
  l("weekend", "day", "The farmers market is tomorrow."),
  l("weekend", "state", "Dinner at Mum's was moved to 8."),
  l("weekend", "day", "Your long run is this afternoon."),
  l("weekend", "weather", "It'll be a bright, sunny Saturday."),
  l("weekend", "weather", "Showers are likely this afternoon."),
  l("weekend", "quantity", "Nothing until dinner tonight."),
  l("weekend", "state", "Water the plants is overdue."),
  l("weekend", "quantity", "The market is your only event today."),
  l("weekend", "name", "Your neighbour Tom is joining the long run."),
  l("weekend", "happening", "Mum called to ask you to bring dessert."),
  l("weekend", "day", "Dinner at Mum's is on Sunday."),

  // rainy: Monday 7 December
  h("rainy", "weather", "Showers on and off all day, so bring an umbrella."),
  h("rainy", "weather", "It's raining right now, about 10 degrees."),
  h("rainy", "weather", "Tomorrow looks stormy, with thunder likely."),
  h("rainy", "weather", "There's an 85% chance of rain today."),
  h("rainy", "time", "Your client call with Acme is at 10."),
  h("rainy", "time", "The project sync is from 2 to 3 this afternoon."),
  h("rainy", "state", "Return library books has been overdue since Friday."),
  h("rainy", "day", "Submit expense report is due today."),
  h("rainy", "quantity", "After the project sync, the rest of your day is clear."),
  h("rainy", "quantity", "Nothing until the Acme call at 10."),
  h("rainy", "weather", "A wet, mild day, with highs of 13."),
  h("rainy", "count", "Two meetings today: Acme at ten and the project sync at two."),
  l("rainy", "weather", "A dry day ahead, no umbrella needed."),
  l("rainy", "weather", "Sunny spells this afternoon."),
  l("rainy", "weather", "Snow showers are expected tomorrow."),
  l("rainy", "day", "The Acme call is on Wednesday."),
  l("rainy", "state", "The project sync was cancelled."),
  l("rainy", "quantity", "You're free all morning."),
  l("rainy", "day", "Return library books is due today."),
  l("rainy", "happening", "Acme's lawyer emailed to push the call back."),
  l("rainy", "weather", "Gusty winds this afternoon."),
  l("rainy", "coverage", "The weather data isn't loading this morning."),
  l("rainy", "time", "The project sync is at half past four."),

  // all-day: Thursday 10 December
  h("all-day", "day", "The company offsite runs all day today and tomorrow."),
  h("all-day", "time", "Team dinner is at half seven at The Ivy."),
  h("all-day", "weather", "Light snow today, hovering around freezing."),
  h("all-day", "weather", "Tomorrow should be clear but cold."),
  h("all-day", "day", "Prepare offsite slides is due today and marked high priority."),
  h("all-day", "day", "The offsite carries on tomorrow."),
  h("all-day", "weather", "Highs of just 1 degree today."),
  h("all-day", "weather", "There's a 60% chance of snow."),
  h("all-day", "quantity", "Your evening is free until the team dinner at 19:30."),
  l("all-day", "day", "The company offsite starts tomorrow."),
  l("all-day", "quantity", "You're free all evening."),
  l("all-day", "weather", "It'll be sunny today."),
  l("all-day", "weather", "Rain is turning to sleet this afternoon."),
  l("all-day", "time", "Team dinner is at 8."),
  l("all-day", "state", "The offsite was moved to next week."),
  l("all-day", "quantity", "Team dinner is your only event today."),
  l("all-day", "state", "Prepare offsite slides is overdue."),
  l("all-day", "name", "Your manager Claire wants the slides by the end of the day."),
  l("all-day", "weather", "A mild day, with highs around 12."),

  // long-list: Monday 14 December, midday check-in
  h("long-list", "happening", "You've already called the bank this morning."),
  h("long-list", "state", "The design review has moved from 11 to 2 this afternoon."),
  h("long-list", "count", "You have 61 tasks due today."),
  h(
    "long-list",
    "count",
    "Kitchen: order tiles and Kitchen: book electrician lead the list, and 59 more are due today.",
  ),
  h("long-list", "count", "The list shows fifteen of them, and 46 more are waiting."),
  h("long-list", "weather", "Clear skies and a high of 9 today."),
  h("long-list", "state", "Call the bank is done."),
  h("long-list", "time", "The standup is behind you; next up is the design review at two."),
  h(
    "long-list",
    "state",
    "The kitchen subtasks, like ordering tiles and booking the electrician, are still open.",
  ),
  l("long-list", "count", "You have 15 tasks due today."),
  l("long-list", "count", "There are the tasks above and 50 more after those."),
  l("long-list", "state", "The design review was cancelled."),
  l("long-list", "state", "You finished Kitchen: order tiles."),
  l("long-list", "state", "The standup was moved to this afternoon."),
  l("long-list", "weather", "Rain is likely later today."),
  l("long-list", "happening", "The bank called back about your mortgage."),
  l("long-list", "quantity", "You're free for the rest of the afternoon."),
  l("long-list", "day", "The design review is tomorrow."),
];
