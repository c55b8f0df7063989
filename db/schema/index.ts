export * from "./briefings.ts";
export * from "./sources.ts";
export * from "./users.ts";
