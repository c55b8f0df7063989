/**
 * What `/api/show` says about a model, and whether that is enough for agentic briefings. The design notes
 * that models in the ≤3B class fail at tool calling, and a model without the `tools` capability gets a 400
 * from Ollama as soon as tools are sent.
 */

export interface ModelCapabilities {
  model: string;
  /** From `capabilities`, or inferred from the template on servers older than 0.6.4. */
  capabilities: string[];
  /** `details.parameter_size` as reported, e.g. `"7.6B"`. */
  parameterSize: string | null;
  /** Parsed from `parameterSize`. */
  parameterCount: number | null;
  /** Trained context, `model_info["<arch>.context_length"]`. */
  contextLength: number | null;
  family: string | null;
  quantization: string | null;
}

/** Models below this are the "3B class" (llama3.2:3b reports 3.2B, qwen2.5:3b 3.1B). */
export const SMALLEST_AGENTIC_PARAMETERS = 3.5e9;

/** Reads the loosely typed `/api/show` JSON (ollama-js types `model_info` as a Map; it is a plain object). */
export function capabilitiesFromShow(model: string, show: unknown): ModelCapabilities {
  const record = isRecord(show) ? show : {};
  const details = isRecord(record.details) ? record.details : {};
  const modelInfo = isRecord(record.model_info) ? record.model_info : {};
  const parameterSize = typeof details.parameter_size === "string" ? details.parameter_size : null;
  const architecture = modelInfo["general.architecture"];
  const contextLength =
    typeof architecture === "string" ? modelInfo[`${architecture}.context_length`] : undefined;
  let capabilities: string[];
  if (Array.isArray(record.capabilities)) {
    capabilities = record.capabilities.filter((entry): entry is string => typeof entry === "string");
  } else {
    // Ollama < 0.6.4 had no `capabilities`; it decided tool support from the template mentioning `.Tools`.
    const template = typeof record.template === "string" ? record.template : "";
    capabilities = template.includes(".Tools") ? ["completion", "tools"] : ["completion"];
  }
  return {
    model,
    capabilities,
    parameterSize,
    parameterCount: parameterSize === null ? null : parseParameterSize(parameterSize),
    contextLength: typeof contextLength === "number" ? contextLength : null,
    family: typeof details.family === "string" ? details.family : null,
    quantization: typeof details.quantization_level === "string" ? details.quantization_level : null,
  };
}

/** `"7.6B"` → 7.6e9, `"494.03M"` → 4.9403e8; `null` when unreadable. */
export function parseParameterSize(size: string): number | null {
  const match = /^\s*([\d.]+)\s*([KMBT])?\s*$/i.exec(size);
  if (!match) return null;
  const value = Number(match[1]);
  if (!Number.isFinite(value)) return null;
  const scale: Record<string, number> = { K: 1e3, M: 1e6, B: 1e9, T: 1e12 };
  return value * (scale[(match[2] ?? "").toUpperCase()] ?? 1);
}

/** `undefined` when the model can run agentic briefings, otherwise why not. */
export function agenticProblem(capabilities: ModelCapabilities): string | undefined {
  if (!capabilities.capabilities.includes("tools")) {
    return `${capabilities.model} does not support tools (capabilities: ${capabilities.capabilities.join(", ") || "none"})`;
  }
  if (capabilities.parameterCount !== null && capabilities.parameterCount < SMALLEST_AGENTIC_PARAMETERS) {
    return `${capabilities.model} has ${capabilities.parameterSize} parameters; models in the 3B class and below fail at tool calling`;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
