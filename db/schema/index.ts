export * from "./briefings.ts";
export * from "./enums.ts";
export * from "./sources.ts";
export * from "./users.ts";
