export type { ExportDocument, ExportOptions } from "./export-document.ts";
export { EXPORT_FORMAT, EXPORT_VERSION, exportFilename } from "./export-document.ts";
export {
  createMemoryForgetQuestions,
  type ForgetQuestion,
  type ForgetQuestions,
  type ForgetStep,
} from "./forget-flow.ts";
export type { MessageRow, RemovalCounts, StoredRow, StoredUserData, UserData } from "./port.ts";
export {
  createUserDataService,
  describeCounts,
  FORGET_QUESTION_MINUTES,
  type ForgetOutcome,
  type UserDataService,
  type UserExport,
} from "./service.ts";
