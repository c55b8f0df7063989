export * from "./accounts.ts";
export * from "./briefings.ts";
export * from "./coordination.ts";
export * from "./enums.ts";
export * from "./invites.ts";
export * from "./sources.ts";
export * from "./users.ts";
