/**
 * The core's public surface: what platform adapters, edge services, the CLI and the composition root use.
 * Adapters import from here only.
 */
export type {
  Assistant,
  BriefingMessage,
  BriefingOutcome,
  ChangeNotice,
  ChatReply,
  ConfirmationOutcome,
  DeliveryAttempt,
  DeliveryReceipt,
  PendingConfirmation,
  PlatformSender,
  ReceiptsView,
  SendPacer,
  StatusCheck,
  ThreadRef,
  UndoOffer,
} from "./assistant.ts";
export { DeliveryError } from "./assistant.ts";
export { receiptsView, slotAt } from "./assistant-service.ts";
export {
  type AnswerSources,
  type Audience,
  answersInBriefingThread,
  audienceOf,
  othersBriefingText,
  readsPersonalData,
  SENT_PRIVATELY_TEXT,
  type SpaceKind,
} from "./audience.ts";
export { CHANGES_SINCE_MORNING_TOOL, type ChangesSinceMorning } from "./briefing/changes-since-morning.ts";
export { briefingMessageOf, UndeliverableRunError } from "./briefing/message.ts";
export { statusChecks, statusRow } from "./briefing/status-row.ts";
export { type Clock, fixedClock, systemClock } from "./clock.ts";
export { type ChatCommand, COMMAND_MENU, commandHelpLines } from "./command-menu.ts";
export { type BriefingRequest, type Core, type CoreOptions, composeCore } from "./compose.ts";
export { type AssistantConfig, DEFAULT_ASSISTANT_CONFIG } from "./config.ts";
export * from "./domain.ts";
export { BriefbotError, errorCode, errorMessage, NotFoundError, RunTakenError } from "./errors.ts";
export { type BriefingEvent, type BriefingObserver, progressLine } from "./events.ts";
export type { Geocoder, PlaceCandidate, PlaceSearch } from "./geocoder.ts";
export { type AccountLookup, identify } from "./identity.ts";
export { type Ids, sequentialIds } from "./ids.ts";
export { normaliseCode } from "./linking/code.ts";
export type { Invites, LinkSender, RedeemResult } from "./linking/invites-port.ts";
export {
  createLinking,
  DEFAULT_INVITE_HOURS,
  type IssuedInvite,
  type Linking,
  type LinkingDeps,
  type LinkOutcome,
} from "./linking/linking.ts";
export { INVALID_CODE_TEXT, linkReply, type ReplyStyle } from "./linking/replies.ts";
export { type Logger, silentLogger } from "./logger.ts";
export type {
  AgenticVerdict,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ModelClient,
  ModelRole,
} from "./model.ts";
export { ModelError, withPreferredModel } from "./model.ts";
export type * from "./ports.ts";
export { type ReceiptBlock, receiptBlock, receiptBlocks } from "./receipt-lines.ts";
export { redactAddress, redactAddressesIn } from "./redact.ts";
export {
  MAX_CHOICE_BYTES,
  type Settings,
  type SettingsChoice,
  type SettingsReply,
} from "./settings/index.ts";
export { nextSlotRun, slotInstant } from "./slot-schedule.ts";
export { outsideSurrogatePair, type SplitRules, splitText } from "./text-split.ts";
export * from "./user-data/index.ts";
