/**
 * How long the user's own text fields may be, wherever they come from: a tool call, the command line, a
 * platform. One table, so a title the CLI refuses is one a tool refuses too.
 */
export const FIELD_LIMITS = {
  taskTitle: 300,
  taskNotes: 2000,
  eventTitle: 300,
  eventLocation: 300,
  eventDescription: 2000,
  noteTitle: 200,
  noteBody: 10_000,
  projectName: 200,
  projectSummary: 2000,
  userProfile: 4000,
  modelName: 200,
  placeName: 200,
} as const;

/** The largest id a row can have (PostgreSQL `serial`): a bigger one names no row at all. */
export const MAX_ROW_ID = 2_147_483_647;
