/**
 * The Docker setup, checked by reading it (no Docker engine runs the tests): GPU pinning by device
 * reservation only, models pulled before briefbot starts, Ollama private to the compose network with a
 * volume each, no password in the file, every documented variable passed through, the compose file's own
 * routes valid for briefbot, and an image that runs dist/ on a current Node LTS as a non-root user.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig, SECRET_VARIABLES } from "../src/config/config.ts";

const ROOT = join(import.meta.dirname, "..");
const composeText = readFileSync(join(ROOT, "docker-compose.yml"), "utf8");
const dockerfile = readFileSync(join(ROOT, "Dockerfile"), "utf8");

interface Service {
  image?: string;
  build?: unknown;
  ports?: string[];
  expose?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  entrypoint?: string[];
  deploy?: {
    resources?: { reservations?: { devices?: Array<{ device_ids?: string[]; capabilities?: string[] }> } };
  };
}

/** Compose's interpolation as `docker compose config` applies it with an empty environment. */
function interpolate(text: string, env: Record<string, string> = {}): string {
  return text.replace(
    /\$\$|\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g,
    (match, name?: string, kind?: string, rest?: string) => {
      if (match === "$$") return "$";
      const value = env[name ?? ""];
      if (value) return value;
      if (kind === "?") throw new Error(`${name}: ${rest}`);
      return kind === "-" ? (rest ?? "") : "";
    },
  );
}

// Compose applies YAML merge keys (`<<: *ollama`); YAML 1.2 parsers need asking.
const compose = parse(interpolate(composeText, { POSTGRES_PASSWORD: "from-the-env-file" }), {
  merge: true,
}) as {
  services: Record<string, Service>;
  configs: Record<string, { content: string }>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const ollamas = Object.entries(services).filter(
  ([, service]) => service.image === "ollama/ollama" && !service.entrypoint,
);

describe("docker-compose.yml", () => {
  it("has two Ollama servers, each pinned to one GPU by its device reservation alone", () => {
    expect(ollamas.map(([name]) => name)).toEqual(["ollama-gpu0", "ollama-gpu1"]);
    const devices = ollamas.map(([, service]) => service.deploy?.resources?.reservations?.devices ?? []);
    expect(devices.map((list) => list.map((device) => device.device_ids))).toEqual([[["0"]], [["1"]]]);
    for (const [name, service] of ollamas) {
      expect(service.deploy?.resources?.reservations?.devices?.[0]?.capabilities, name).toEqual(["gpu"]);
      // Inside the container the reserved GPU is the only one; an index here would point past it.
      expect(Object.keys(service.environment ?? {}), name).not.toContain("CUDA_VISIBLE_DEVICES");
      expect(Object.keys(service.environment ?? {}), name).not.toContain("NVIDIA_VISIBLE_DEVICES");
    }
  });

  it("keeps Ollama on the compose network, with a volume and a healthcheck each", () => {
    const volumes = ollamas.map(([, service]) => service.volumes ?? []);
    for (const [name, service] of ollamas) {
      expect(service.ports, name).toBeUndefined();
      expect(service.healthcheck?.test, name).toEqual(["CMD", "ollama", "list"]);
    }
    expect(volumes.map((list) => list.map((volume) => volume.split(":")[0]))).toEqual([
      ["ollama-gpu0"],
      ["ollama-gpu1"],
    ]);
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(["ollama-gpu0", "ollama-gpu1"]));
    expect(services.postgres?.ports).toBeUndefined();
  });

  it("pulls the routes' model into each Ollama server before briefbot starts", () => {
    const config = loadConfig(
      { BRIEFBOT_CONFIG: "/config/briefbot.yml" },
      () => compose.configs.briefbot?.content ?? "",
    );
    const models = new Set(Object.values(config.models.routes).map((route) => route.model));
    expect([...models]).toEqual(["qwen2.5:7b"]);
    for (const [name] of ollamas) {
      const pull = services[`pull-${name.replace("ollama-", "")}`];
      expect(pull?.environment?.OLLAMA_HOST, name).toBe(`http://${name}:11434`);
      expect(pull?.environment?.MODEL, name).toBe("qwen2.5:7b");
      expect(pull?.entrypoint?.join(" "), name).toContain('ollama pull "$MODEL"');
      expect(pull?.depends_on?.[name]?.condition, name).toBe("service_healthy");
      expect(services.briefbot?.depends_on?.[`pull-${name.replace("ollama-", "")}`]?.condition).toBe(
        "service_completed_successfully",
      );
    }
    // Each route's endpoint is one of the compose services, on the port it listens on.
    expect(config.models.endpoints.map((endpoint) => endpoint.url)).toEqual([
      "http://ollama-gpu0:11434",
      "http://ollama-gpu1:11434",
    ]);
    // BRIEFBOT_MODEL changes the routes and the pulls together.
    const other = parse(
      interpolate(composeText, { POSTGRES_PASSWORD: "x", BRIEFBOT_MODEL: "llama3.1:8b" }),
    ) as typeof compose;
    expect(other.services["pull-gpu1"]?.environment?.MODEL).toBe("llama3.1:8b");
    expect(other.configs.briefbot?.content).toContain('model: "llama3.1:8b"');
  });

  it("holds no password: PostgreSQL's comes from .env and compose refuses to start without it", () => {
    expect(composeText).not.toMatch(/POSTGRES_PASSWORD: (?!\$\{POSTGRES_PASSWORD:\?)/);
    expect(() => interpolate(composeText)).toThrow(/POSTGRES_PASSWORD: set POSTGRES_PASSWORD in \.env/);
    expect(services.postgres?.environment?.POSTGRES_PASSWORD).toBe("from-the-env-file");
    expect(services.briefbot?.environment?.DATABASE_URL).toBe(
      "postgres://briefbot:from-the-env-file@postgres:5432/briefbot",
    );
  });

  it("passes every variable of the README's configuration table, and the *_FILE secrets, to briefbot", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("### Model routes"));
    const documented = [...section.matchAll(/^\| ([^|]+)\|/gm)].flatMap((match) =>
      [...(match[1] ?? "").matchAll(/`([A-Z_]+)`/g)].map((name) => name[1]),
    );
    expect(documented.length).toBeGreaterThan(15);
    const passed = Object.keys(services.briefbot?.environment ?? {});
    for (const name of documented) expect(passed, name).toContain(name);
    for (const name of SECRET_VARIABLES.filter((secret) => secret !== "DATABASE_URL")) {
      expect(passed, `${name}_FILE`).toContain(`${name}_FILE`);
    }
  });
});

describe("docker-compose.replicas.yml", () => {
  const replicasText = readFileSync(join(ROOT, "docker-compose.replicas.yml"), "utf8");
  const env = {
    POSTGRES_PASSWORD: "from-the-env-file",
    OLLAMA_HOST: "http://gpu0:11434",
    BRIEFBOT_DOMAIN: "briefbot.example.org",
    TELEGRAM_BOT_TOKEN: "123:abc",
    TELEGRAM_WEBHOOK_SECRET: "s3cret-token",
    SLACK_BOT_TOKEN: "xoxb-1",
    SLACK_SIGNING_SECRET: "signing",
  };
  const replicas = parse(interpolate(replicasText, env), { merge: true }) as {
    services: Record<string, Service & { configs?: Array<{ source: string; target: string }> }>;
    configs: Record<string, { content: string }>;
  };
  const bots = Object.entries(replicas.services).filter(([name]) => name.startsWith("briefbot"));

  it("runs two replicas on one PostgreSQL, reachable only through the proxy", () => {
    expect(bots.map(([name]) => name)).toEqual(["briefbot-1", "briefbot-2"]);
    for (const [name, service] of bots) {
      expect(service.environment?.DATABASE_URL, name).toBe(
        "postgres://briefbot:from-the-env-file@postgres:5432/briefbot",
      );
      expect(service.ports, name).toBeUndefined();
      expect(service.expose, name).toEqual(["3000"]);
      expect(service.depends_on?.postgres?.condition, name).toBe("service_healthy");
    }
    expect(replicas.services.postgres?.ports).toBeUndefined();
    expect(replicas.services.caddy?.ports).toEqual(["80:80", "443:443"]);
  });

  it("configures every replica for the modes several processes can serve: webhook and HTTP", () => {
    for (const [name, service] of bots) {
      // An unset variable arrives empty (YAML reads it as null): unset, as compose passes it.
      const environment = Object.fromEntries(
        Object.entries(service.environment ?? {}).filter(([, value]) => value !== "" && value !== null),
      );
      const config = loadConfig(environment, () => "");
      expect(config.telegram?.webhookUrl, name).toBe("https://briefbot.example.org/telegram/webhook");
      expect(config.telegram?.webhookSecret, name).toBe("s3cret-token");
      expect(config.slack?.appToken, name).toBeUndefined();
      expect(config.database.url, name).toContain("@postgres:5432/");
      expect(Object.keys(service.environment ?? {}), name).not.toContain("SLACK_APP_TOKEN");
    }
    // Compose refuses to start without what webhook mode needs.
    const { TELEGRAM_WEBHOOK_SECRET: _secret, ...withoutSecret } = env;
    expect(() => interpolate(replicasText, withoutSecret)).toThrow(/TELEGRAM_WEBHOOK_SECRET/);
    const { BRIEFBOT_DOMAIN: _domain, ...withoutDomain } = env;
    expect(() => interpolate(replicasText, withoutDomain)).toThrow(/BRIEFBOT_DOMAIN/);
  });

  it("puts one address in front of both replicas' port, skipping one that is down", () => {
    const caddy = replicas.services.caddy;
    expect(caddy?.image).toMatch(/^caddy:/);
    const target = caddy?.configs?.find((config) => config.source === "caddyfile")?.target;
    expect(target).toBe("/etc/caddy/Caddyfile");
    const caddyfile = replicas.configs.caddyfile?.content ?? "";
    // `$$` is compose's escape: Caddy itself reads {$BRIEFBOT_DOMAIN} from its environment.
    expect(caddyfile).toContain("{$BRIEFBOT_DOMAIN} {");
    expect(caddy?.environment?.BRIEFBOT_DOMAIN).toBe("briefbot.example.org");
    expect(caddyfile).toMatch(/reverse_proxy briefbot-1:3000 briefbot-2:3000 \{/);
    expect(caddyfile).toContain("lb_policy round_robin");
    expect(caddyfile).toMatch(/lb_try_duration \d+s/);
    expect(caddyfile).toContain("health_uri /healthz");
  });
});

describe("Dockerfile", () => {
  const stages = dockerfile.split(/^FROM /m).slice(1);
  const final = stages.at(-1) ?? "";

  it("compiles dist/ in a build stage and runs it, not the sources, in the final one", () => {
    expect(stages[0]).toMatch(/RUN npm run build/);
    expect(final).toMatch(/COPY --from=build .*\/app\/dist \.\/dist/);
    expect(final).not.toMatch(/COPY .* src /);
    expect(final).toContain('ENTRYPOINT ["node", "bin/briefbot.js"]');
    // Production dependencies only, from their own stage.
    expect(final).toMatch(/COPY --from=deps .*\/app\/node_modules/);
    expect(stages[1]).toContain("npm ci --omit=dev");
  });

  it("runs on a supported Node LTS line, as a non-root user, with a health check", () => {
    const version = Number(/^ARG NODE_VERSION=(\d+)$/m.exec(dockerfile)?.[1]);
    // Even lines are LTS; 20 left support in April 2026.
    expect(version % 2).toBe(0);
    expect(version).toBeGreaterThanOrEqual(22);
    expect(final).toMatch(/^USER briefbot$/m);
    expect(final).toMatch(/HEALTHCHECK .*\n.*\/healthz/);
  });
});
