export { type ParsedSettings, parseSettings, SETTINGS_EXAMPLES, type SettingsChange } from "./parse.ts";
export {
  createSettings,
  MAX_CHOICE_BYTES,
  type Settings,
  type SettingsChoice,
  type SettingsDeps,
  type SettingsReply,
} from "./service.ts";
