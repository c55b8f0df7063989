/**
 * The weather lexicon: which words a forecast day allows, from its WMO weather code (or the WMO words of its
 * summary) and its chance of precipitation. Every threshold the weather claims use is here, in one place.
 */

export type WeatherCondition =
  | "clear"
  | "sunny_spells"
  | "partly_cloudy"
  | "cloudy"
  | "overcast"
  | "fog"
  | "drizzle"
  | "rain"
  | "showers"
  | "snow"
  | "sleet"
  | "storm"
  | "hail"
  | "wet"
  | "dry";

export const WEATHER_THRESHOLDS = {
  /** A chance of precipitation at or above this makes "rain" (unhedged) true even on a cloudy code. */
  rainLikelyPercent: 50,
  /** "A chance of showers", "might rain", "bring an umbrella just in case": at or above this. */
  rainPossiblePercent: 25,
  /** "A small chance of rain", "a slight risk of showers": the chance must stay below this. */
  lowChanceBelowPercent: 50,
  /** "Dry", "no rain": the chance must stay below this, and the code must not be wet. */
  dryBelowPercent: 30,
  /** "Windy", "breezy", "gusty": wind at or above this, km/h. */
  windyKmh: 30,
  /** Temperature words, °C, against the day's high (and low). */
  hotHigh: 27,
  warmHigh: 17,
  coolHighMax: 17,
  coldHighMax: 12,
  coldLowMax: 5,
  mildHighMin: 7,
  mildHighMax: 22,
  freezingLowMax: 1,
  /** "Muggy", "humid", "sultry": close, warm air, so at least this high. */
  muggyHigh: 20,
} as const;

/** WMO codes (Open-Meteo's table) to the conditions they make true. */
const CODE_GROUPS: Array<[readonly number[], readonly WeatherCondition[]]> = [
  [[0], ["clear", "sunny_spells", "dry"]],
  [[1], ["clear", "sunny_spells", "partly_cloudy", "dry"]],
  [[2], ["sunny_spells", "partly_cloudy", "cloudy", "dry"]],
  [[3], ["cloudy", "overcast", "dry"]],
  [
    [45, 48],
    ["fog", "cloudy", "overcast", "dry"],
  ],
  [
    [51, 53, 55],
    ["drizzle", "rain", "wet", "cloudy", "overcast"],
  ],
  [
    [56, 57],
    ["drizzle", "rain", "sleet", "wet", "cloudy", "overcast"],
  ],
  [
    [61, 63, 65],
    ["rain", "showers", "drizzle", "wet", "cloudy", "overcast"],
  ],
  [
    [66, 67],
    ["rain", "sleet", "wet", "cloudy", "overcast"],
  ],
  [
    [71, 73, 75, 77],
    ["snow", "wet", "cloudy", "overcast"],
  ],
  [
    [80, 81, 82],
    ["showers", "rain", "wet", "cloudy"],
  ],
  [
    [85, 86],
    ["snow", "showers", "sleet", "wet", "cloudy"],
  ],
  [[95], ["storm", "rain", "showers", "wet", "cloudy", "overcast"]],
  [
    [96, 99],
    ["storm", "hail", "rain", "showers", "wet", "cloudy", "overcast"],
  ],
];

/** The WMO descriptions (src/core/weather/wmo-codes.ts) read back to a code, for receipts without one. */
const SUMMARY_CODES: Array<[RegExp, number]> = [
  [/thunderstorm with (?:light|heavy)? ?hail/, 96],
  [/thunder/, 95],
  [/snow showers/, 85],
  [/snow/, 73],
  [/freezing rain/, 66],
  [/freezing drizzle/, 56],
  [/rain showers|showers/, 80],
  [/rain/, 63],
  [/drizzle/, 53],
  [/fog/, 45],
  [/overcast/, 3],
  [/partly cloudy/, 2],
  [/mainly clear|mostly clear/, 1],
  [/clear|sunny/, 0],
  [/cloudy/, 3],
];

/** The conditions a day's code (or summary) and chance of precipitation make true. */
export function conditionsOf(
  code: number | undefined,
  summary: string,
  chance: number | undefined,
): Set<WeatherCondition> {
  const known = code ?? SUMMARY_CODES.find(([pattern]) => pattern.test(summary.toLowerCase()))?.[1];
  const found = new Set<WeatherCondition>();
  for (const [codes, conditions] of CODE_GROUPS) {
    if (known !== undefined && codes.includes(known))
      for (const condition of conditions) found.add(condition);
  }
  if (chance !== undefined && chance >= WEATHER_THRESHOLDS.rainLikelyPercent) {
    for (const condition of ["rain", "showers", "wet"] as const) found.add(condition);
  }
  if (chance !== undefined && chance >= WEATHER_THRESHOLDS.dryBelowPercent) found.delete("dry");
  return found;
}

/** What a weather word claims: a condition, a hedged chance of rain, dry, windy, or a temperature feel. */
export type WeatherWordClaim =
  | { kind: "condition"; condition: WeatherCondition }
  | { kind: "possible_rain" }
  | { kind: "wind" }
  | { kind: "feel"; feel: Feel }
  /** "Bring a jacket", "you'll want a coat": a day for cover — rain possible, or cool enough. */
  | { kind: "cover" };

export type Feel = "hot" | "warm" | "cool" | "cold" | "mild" | "freezing" | "muggy";

/** The lexicon: words (as a regular expression's alternation) and what each claims. Longest phrases first. */
export const WEATHER_WORDS: Array<[string, WeatherWordClaim]> = [
  [
    String.raw`sunny (?:spells|intervals|periods|breaks)|bright(?:ening|er)?(?! and early)(?: spells| intervals| periods)?|spells of sun(?:shine)?|some sun(?:shine)?|bits? of sun(?:shine)?|breaks of sun(?:shine)?|partly sunny|sun and cloud|bright spells|glimpses of sun`,
    { kind: "condition", condition: "sunny_spells" },
  ],
  [
    String.raw`partly cloudy|partly overcast|some cloud|a mix of sun and cloud`,
    { kind: "condition", condition: "partly_cloudy" },
  ],
  [
    String.raw`clear skies|clear sky|blue skies|cloudless|sunny|sunshine|sun-drenched|bright and clear|wall-to-wall sun`,
    {
      kind: "condition",
      condition: "clear",
    },
  ],
  [String.raw`overcast|grey skies|gray skies|leaden`, { kind: "condition", condition: "overcast" }],
  [String.raw`mostly cloudy|cloudy|clouds|cloud cover|grey|gray`, { kind: "condition", condition: "cloudy" }],
  [String.raw`fog|foggy|mist|misty|murky`, { kind: "condition", condition: "fog" }],
  [String.raw`drizzle|drizzly`, { kind: "condition", condition: "drizzle" }],
  [String.raw`thunderstorms?|thunder|lightning|storms?|stormy`, { kind: "condition", condition: "storm" }],
  [String.raw`hail|hailstones?`, { kind: "condition", condition: "hail" }],
  [String.raw`sleet|sleety|freezing rain`, { kind: "condition", condition: "sleet" }],
  [String.raw`snow|snowy|snowfall|snowing|flurries|blizzards?`, { kind: "condition", condition: "snow" }],
  [String.raw`showers|showery`, { kind: "condition", condition: "showers" }],
  [
    String.raw`rain|rainy|raining|rainfall|downpours?|deluge|cloudbursts?|pouring|bucketing|chucking it down|spitting|damp|wet|soggy|washout|umbrellas?|brolly|brollies|rain ?coats?|rain ?jackets?|waterproofs?|wellies|wellington boots`,
    {
      kind: "condition",
      condition: "rain",
    },
  ],
  [String.raw`dry|rain-free`, { kind: "condition", condition: "dry" }],
  [String.raw`jackets?|coats?|an extra layer|layers`, { kind: "cover" }],
  [
    String.raw`windy|breezy|gusty|gusts?|gales?|blustery|strong winds?|winds?(?!\s+(?:down|up)\b)`,
    { kind: "wind" },
  ],
  [String.raw`scorching|sweltering|hot`, { kind: "feel", feel: "hot" }],
  [String.raw`muggy|humid|sultry|steamy|close and sticky`, { kind: "feel", feel: "muggy" }],
  // Advice to dress against the cold says the day is cold: "wrap up warm" is not a warm day.
  [
    String.raw`wrap(?:ped)? up(?: warm(?:ly)?| well)?|bundle up|dress warm(?:ly)?|keep warm|stay warm|wrap up warm|hats? and gloves|gloves|scarf|scarves`,
    { kind: "feel", feel: "cold" },
  ],
  [
    String.raw`freezing|frost|frosty|icy|ice|cold snap|below zero|sub-zero`,
    { kind: "feel", feel: "freezing" },
  ],
  [String.raw`warm|balmy`, { kind: "feel", feel: "warm" }],
  [String.raw`cold|chilly|nippy|bitter`, { kind: "feel", feel: "cold" }],
  [String.raw`cool|crisp`, { kind: "feel", feel: "cool" }],
  [String.raw`mild`, { kind: "feel", feel: "mild" }],
];

/** Whether a temperature feel fits a day's low and high. */
export function feelFits(feel: Feel, low: number | undefined, high: number | undefined): boolean {
  const t = WEATHER_THRESHOLDS;
  if (high === undefined && low === undefined) return false;
  const top = high ?? low ?? 0;
  const bottom = low ?? high ?? 0;
  switch (feel) {
    case "hot":
      return top >= t.hotHigh;
    case "warm":
      return top >= t.warmHigh;
    case "cool":
      return bottom <= t.coolHighMax;
    case "cold":
      return top <= t.coldHighMax || bottom <= t.coldLowMax;
    case "mild":
      return top >= t.mildHighMin && top <= t.mildHighMax;
    case "freezing":
      return bottom <= t.freezingLowMax;
    case "muggy":
      return top >= t.muggyHigh;
  }
}

/** Any word of the lexicon, for telling "a chilly, clear morning" (weather) from "a clear morning" (free time). */
export const ANY_WEATHER_WORD = new RegExp(
  String.raw`\b(?:${WEATHER_WORDS.map(([words]) => words).join("|")})\b`,
  "iu",
);
