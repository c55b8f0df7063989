/**
 * The one module that turns the environment and the optional BRIEFBOT_CONFIG file into a validated
 * `Config`. It takes the environment and a file reader as arguments; only `src/cli/main.ts` hands it
 * `process.env`.
 */
import { extname } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { BriefbotError, errorMessage } from "../core/errors.ts";
import { parseSecretKey } from "../sources/accounts/secret-cipher.ts";
import { allowHostProblem, type NetworkPolicy } from "../sources/network/address-policy.ts";
import { DEFAULT_OPEN_METEO_GEOCODING_URL } from "../sources/weather/geocoding.ts";
import { DEFAULT_OPEN_METEO_URL } from "../sources/weather/open-meteo-forecast.ts";
import {
  modelRoutesFields,
  normalizeOllamaUrl,
  type ResolvedModelRoutes,
  refineModelRoutes,
  resolveModelRoutes,
} from "./model-routes.ts";

const DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434";
const DEFAULT_MODEL = "qwen2.5:7b";
/** Long enough for a forecast and a few calendars on a normal line, short enough that nobody waits on a dead host. */
const DEFAULT_REFRESH_DEADLINE_SECONDS = 5;
/** A whole briefing (every model turn, tool call and correction), and a whole chat answer. */
const DEFAULT_RUN_DEADLINE_SECONDS = 600;
const DEFAULT_CHAT_DEADLINE_SECONDS = 180;
/** How long the Undo button under a change made in chat works. */
const DEFAULT_UNDO_MINUTES = 24 * 60;

export interface Config {
  database: { url: string | undefined; dataDir: string };
  /** Where the config file came from, for start-up messages. */
  configFile: string | undefined;
  models: ResolvedModelRoutes;
  telegram: TelegramConfig | undefined;
  slack: SlackConfig | undefined;
  openMeteo: { forecastUrl: string; geocodingUrl: string };
  port: number;
  sync: { calendarMinutes: number; feedMinutes: number; weatherMinutes: number };
  /** Which addresses calendar and feed fetches may reach (weather URLs are the operator's own and unchecked). */
  sources: NetworkPolicy;
  briefing: {
    /** Receipts older than this may be refreshed by read-only tools in follow-ups. */
    receiptMaxAgeMinutes: number;
    retentionDays: number;
    confirmationMinutes: number;
    /** A slot's "not after": past it, a missed briefing is skipped rather than sent late. */
    staleAfterMinutes: number;
    /** How long a briefing waits for its stale sources (weather, calendars, feeds) before going ahead. */
    refreshDeadlineSeconds: number;
    /** A briefing's overall deadline; past it the run ends in its digest. */
    runDeadlineSeconds: number;
    /** A chat answer's overall deadline; past it the reply is an apology. */
    chatDeadlineSeconds: number;
    undoMinutes: number;
  };
  /** Who may start using the bot: with `selfSignup`, `/start` from a stranger creates their user. */
  access: { selfSignup: boolean };
  /** The key account secrets are sealed with (BRIEFBOT_SECRET_KEY or its _FILE); undefined when unset. */
  secretKey: string | undefined;
  logLevel: string;
}

export interface TelegramConfig {
  token: string;
  apiRoot: string;
  webhookUrl: string | undefined;
  webhookSecret: string | undefined;
}

export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  appToken: string | undefined;
  apiUrl: string;
  /** Post briefings here instead of each user's DM. */
  channel: string | undefined;
  /** Channels meant for everyone in them (`slack.team_channels`): answers there are read by all. */
  teamChannels: string[];
}

/** Every configuration problem, one line each, so the operator fixes them all in one go. */
export class ConfigError extends BriefbotError {
  constructor(readonly problems: string[]) {
    super("config_invalid", problems.join("\n"));
  }
}

const optionalText = z
  .string()
  .transform((value) => value.trim())
  .optional()
  .transform((value) => (value ? value : undefined));

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

const EnvSchema = z.object({
  DATABASE_URL: optionalText.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
      .optional(),
  ),
  BRIEFBOT_DATA_DIR: optionalText,
  BRIEFBOT_CONFIG: optionalText,
  OLLAMA_HOST: optionalText,
  BRIEFBOT_MODEL: optionalText,
  TELEGRAM_BOT_TOKEN: optionalText,
  TELEGRAM_API_ROOT: optionalText.pipe(httpUrl.optional()),
  TELEGRAM_WEBHOOK_URL: optionalText.pipe(
    z.url({ protocol: /^https$/, error: "must be an https URL" }).optional(),
  ),
  TELEGRAM_WEBHOOK_SECRET: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,256}$/, "must be 1-256 characters of A-Z a-z 0-9 _ -")
      .optional(),
  ),
  SLACK_BOT_TOKEN: optionalText,
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText,
  SLACK_API_URL: optionalText.pipe(httpUrl.optional()),
  SLACK_CHANNEL: optionalText,
  OPEN_METEO_URL: optionalText.pipe(httpUrl.optional()),
  OPEN_METEO_GEOCODING_URL: optionalText.pipe(httpUrl.optional()),
  PORT: optionalText.pipe(
    z
      .string()
      .regex(/^\d+$/, "must be a port number")
      .transform(Number)
      .refine((port) => port >= 1 && port <= 65535, "must be between 1 and 65535")
      .optional(),
  ),
  BRIEFBOT_SECRET_KEY: optionalText.pipe(
    z
      .string()
      .superRefine((text, context) => {
        try {
          parseSecretKey(text);
        } catch (error) {
          context.addIssue({ code: "custom", message: errorMessage(error) });
        }
      })
      .optional(),
  ),
  LOG_LEVEL: optionalText.pipe(
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  ),
});

const minutes = (fallback: number) => z.number().positive().default(fallback);

const allowedHost = z
  .string({ error: "must be a host name, IP address or CIDR range, in quotes if need be" })
  .superRefine((entry, context) => {
    const problem = allowHostProblem(entry);
    if (problem) context.addIssue({ code: "custom", message: problem });
  });

const SourcesSchema = z
  .object({
    allow_private_networks: z.boolean({ error: "must be true or false" }).default(false),
    allow_hosts: z
      .array(allowedHost, { error: "must be a list of host names, IP addresses or CIDR ranges" })
      .default([]),
  })
  .strict()
  .default({ allow_private_networks: false, allow_hosts: [] });

/** A channel's id (C… or, for older private channels, G…), not its name: names change, ids do not. */
const slackChannelId = z
  .string({ error: "must be a Slack channel id like C0123ABCD" })
  .trim()
  .superRefine((id, context) => {
    if (/^[CG][A-Z0-9]{2,}$/.test(id)) return;
    context.addIssue({
      code: "custom",
      message: id.startsWith("D")
        ? `"${id}" is a DM, which is private already; list channels only`
        : `"${id}" is not a Slack channel id (like C0123ABCD: the channel's details show it, below its name)`,
    });
  });

const SlackFileSchema = z
  .object({
    team_channels: z.array(slackChannelId, { error: "must be a list of Slack channel ids" }).default([]),
  })
  .strict()
  .default({ team_channels: [] });

const BRIEFING_DEFAULTS = {
  receipt_max_age_minutes: 60,
  retention_days: 7,
  confirmation_minutes: 10,
  stale_after_minutes: 90,
  refresh_deadline_seconds: DEFAULT_REFRESH_DEADLINE_SECONDS,
  run_deadline_seconds: DEFAULT_RUN_DEADLINE_SECONDS,
  chat_deadline_seconds: DEFAULT_CHAT_DEADLINE_SECONDS,
  undo_minutes: DEFAULT_UNDO_MINUTES,
};

const FileSchema = z
  .object({
    ...modelRoutesFields,
    sync: z
      .object({
        calendar_minutes: minutes(15),
        feed_minutes: minutes(30),
        weather_minutes: minutes(30),
      })
      .strict()
      .default({ calendar_minutes: 15, feed_minutes: 30, weather_minutes: 30 }),
    sources: SourcesSchema,
    briefing: z
      .object({
        receipt_max_age_minutes: minutes(60),
        retention_days: minutes(7),
        confirmation_minutes: minutes(10),
        stale_after_minutes: minutes(90),
        refresh_deadline_seconds: z.number().positive().max(120).default(DEFAULT_REFRESH_DEADLINE_SECONDS),
        run_deadline_seconds: z.number().positive().max(7200).default(DEFAULT_RUN_DEADLINE_SECONDS),
        chat_deadline_seconds: z.number().positive().max(3600).default(DEFAULT_CHAT_DEADLINE_SECONDS),
        undo_minutes: minutes(DEFAULT_UNDO_MINUTES),
      })
      .strict()
      .default(BRIEFING_DEFAULTS),
    access: z
      .object({ self_signup: z.boolean({ error: "must be true or false" }).default(false) })
      .strict()
      .default({ self_signup: false }),
    slack: SlackFileSchema,
  })
  .strict()
  .superRefine(refineModelRoutes);

export type ConfigFile = z.infer<typeof FileSchema>;

export type Environment = Record<string, string | undefined>;

/**
 * Validates everything and returns the config, or throws a `ConfigError` listing every problem as
 * `<VARIABLE or BRIEFBOT_CONFIG>: <where> <what>`.
 */
export function loadConfig(env: Environment, readFile: (path: string) => string): Config {
  const problems: string[] = [];
  const vars = readEnvironment(withSecretFiles(env, readFile, problems), problems);

  let file: ConfigFile | undefined;
  if (vars.BRIEFBOT_CONFIG) {
    const result = readConfigFile(vars.BRIEFBOT_CONFIG, readFile);
    if (result.ok) file = result.file;
    else problems.push(...result.problems);
  }

  if (vars.SLACK_BOT_TOKEN && !vars.SLACK_SIGNING_SECRET && !vars.SLACK_APP_TOKEN) {
    problems.push(
      "SLACK_SIGNING_SECRET: required with SLACK_BOT_TOKEN in HTTP mode (or set SLACK_APP_TOKEN for Socket Mode)",
    );
  }
  if ((vars.SLACK_SIGNING_SECRET || vars.SLACK_APP_TOKEN) && !vars.SLACK_BOT_TOKEN) {
    problems.push("SLACK_BOT_TOKEN: required when other SLACK_* variables are set");
  }
  if (vars.TELEGRAM_WEBHOOK_URL && !vars.TELEGRAM_BOT_TOKEN) {
    problems.push("TELEGRAM_BOT_TOKEN: required when TELEGRAM_WEBHOOK_URL is set");
  }
  if (vars.TELEGRAM_WEBHOOK_URL && !vars.TELEGRAM_WEBHOOK_SECRET) {
    problems.push("TELEGRAM_WEBHOOK_SECRET: required in webhook mode, so forged updates are refused");
  }
  if (vars.OLLAMA_HOST && !normalizeOllamaUrl(vars.OLLAMA_HOST)) {
    problems.push(
      `OLLAMA_HOST: "${vars.OLLAMA_HOST}" is not an Ollama address (like 127.0.0.1:11434 or http://gpu0:11434)`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const sync = file?.sync ?? { calendar_minutes: 15, feed_minutes: 30, weather_minutes: 30 };
  const sources = file?.sources ?? { allow_private_networks: false, allow_hosts: [] };
  const briefing = file?.briefing ?? BRIEFING_DEFAULTS;
  return {
    database: { url: vars.DATABASE_URL, dataDir: vars.BRIEFBOT_DATA_DIR ?? "./.briefbot" },
    configFile: vars.BRIEFBOT_CONFIG,
    models: resolveModelRoutes(file, {
      ollamaHost: vars.OLLAMA_HOST ?? DEFAULT_OLLAMA_HOST,
      model: vars.BRIEFBOT_MODEL ?? DEFAULT_MODEL,
    }),
    telegram: vars.TELEGRAM_BOT_TOKEN
      ? {
          token: vars.TELEGRAM_BOT_TOKEN,
          apiRoot: (vars.TELEGRAM_API_ROOT ?? "https://api.telegram.org").replace(/\/+$/, ""),
          webhookUrl: vars.TELEGRAM_WEBHOOK_URL,
          webhookSecret: vars.TELEGRAM_WEBHOOK_SECRET,
        }
      : undefined,
    slack:
      vars.SLACK_BOT_TOKEN && (vars.SLACK_SIGNING_SECRET || vars.SLACK_APP_TOKEN)
        ? {
            botToken: vars.SLACK_BOT_TOKEN,
            signingSecret: vars.SLACK_SIGNING_SECRET ?? "",
            appToken: vars.SLACK_APP_TOKEN,
            apiUrl: withTrailingSlash(vars.SLACK_API_URL ?? "https://slack.com/api/"),
            channel: vars.SLACK_CHANNEL,
            teamChannels: [...new Set(file?.slack.team_channels ?? [])],
          }
        : undefined,
    openMeteo: {
      forecastUrl: vars.OPEN_METEO_URL ?? DEFAULT_OPEN_METEO_URL,
      geocodingUrl: vars.OPEN_METEO_GEOCODING_URL ?? DEFAULT_OPEN_METEO_GEOCODING_URL,
    },
    port: vars.PORT ?? 3000,
    sync: {
      calendarMinutes: sync.calendar_minutes,
      feedMinutes: sync.feed_minutes,
      weatherMinutes: sync.weather_minutes,
    },
    sources: {
      allowPrivateNetworks: sources.allow_private_networks,
      allowHosts: sources.allow_hosts.map((host) => host.trim()),
    },
    briefing: {
      receiptMaxAgeMinutes: briefing.receipt_max_age_minutes,
      retentionDays: briefing.retention_days,
      confirmationMinutes: briefing.confirmation_minutes,
      staleAfterMinutes: briefing.stale_after_minutes,
      refreshDeadlineSeconds: briefing.refresh_deadline_seconds,
      runDeadlineSeconds: briefing.run_deadline_seconds,
      chatDeadlineSeconds: briefing.chat_deadline_seconds,
      undoMinutes: briefing.undo_minutes,
    },
    access: { selfSignup: file?.access.self_signup ?? false },
    secretKey: vars.BRIEFBOT_SECRET_KEY,
    logLevel: vars.LOG_LEVEL ?? "info",
  };
}

type EnvVars = z.infer<typeof EnvSchema>;

/** Variables that may come from a file instead (`TELEGRAM_BOT_TOKEN_FILE=/run/secrets/telegram`). */
export const SECRET_VARIABLES = [
  "DATABASE_URL",
  "TELEGRAM_BOT_TOKEN",
  "TELEGRAM_WEBHOOK_SECRET",
  "SLACK_BOT_TOKEN",
  "SLACK_SIGNING_SECRET",
  "SLACK_APP_TOKEN",
  "BRIEFBOT_SECRET_KEY",
] as const;

/**
 * Docker and Kubernetes secrets arrive as files: `NAME_FILE` names one and its contents (without the
 * trailing newline) become `NAME`, so tokens need not sit in the environment or the compose file.
 */
function withSecretFiles(
  env: Environment,
  readFile: (path: string) => string,
  problems: string[],
): Environment {
  const resolved: Environment = { ...env };
  for (const name of SECRET_VARIABLES) {
    const path = env[`${name}_FILE`]?.trim();
    if (!path) continue;
    if (env[name]?.trim()) {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      resolved[name] = readFile(path).replace(/\r?\n$/, "");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push(`${name}_FILE: cannot read ${path}${code ? ` (${code})` : ""}`);
    }
  }
  return resolved;
}

/** Variable by variable, so one bad value neither hides the others nor the cross-checks after it. */
function readEnvironment(env: Environment, problems: string[]): EnvVars {
  const vars: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(EnvSchema.shape)) {
    const parsed = schema.safeParse(env[name]);
    if (parsed.success) vars[name] = parsed.data;
    else problems.push(`${name}: ${parsed.error.issues[0]?.message ?? "is invalid"}`);
  }
  return vars as EnvVars;
}

type FileResult = { ok: true; file: ConfigFile } | { ok: false; problems: string[] };

function readConfigFile(path: string, readFile: (path: string) => string): FileResult {
  let text: string;
  try {
    text = readFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problems: [`BRIEFBOT_CONFIG: cannot read ${path}${code ? ` (${code})` : ""}`] };
  }
  let raw: unknown;
  try {
    raw = extname(path).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return {
      ok: false,
      problems: [
        `BRIEFBOT_CONFIG: ${path} is not valid ${extname(path) === ".json" ? "JSON" : "YAML"}: ${message}`,
      ],
    };
  }
  const parsed = FileSchema.safeParse(raw ?? {});
  if (parsed.success) return { ok: true, file: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const where = issue.path.length > 0 ? `${issue.path.join(".")} ` : "";
      return `BRIEFBOT_CONFIG: ${where}${issue.message}`;
    }),
  };
}

function withTrailingSlash(url: string): string {
  return url.endsWith("/") ? url : `${url}/`;
}
