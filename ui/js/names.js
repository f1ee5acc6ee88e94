// The wire's names, in one place for the whole UI: the events the hub sends, the commands it takes, agent
// states, how an agent runs, why it ended, message kinds, error codes, the answers to a request, permission
// modes, voice settings and the terminal's frames. The hub's Rust enums are the source; a test
// (crates/hub/tests/ui_names.rs) fails when a list here and its enum differ, or when a UI file spells one
// of these names as a literal instead of taking it from here, so a rename breaks a test instead of the UI.

/** An agent's state (`clawmux_core::State`). */
export const State = Object.freeze({
  STARTING: 'starting',
  IDLE: 'idle',
  PROCESSING: 'processing',
  COMPACTING: 'compacting',
  DEAD: 'dead',
});

/** How an agent runs (`LaunchKind`). */
export const Launch = Object.freeze({
  CLAUDE: 'claude',
  DEMO: 'demo',
  EXTERNAL: 'external',
  OBSERVED: 'observed',
});

/** Why an agent's process ended (`EndReason`). */
export const EndReason = Object.freeze({
  TERMINATED: 'terminated',
  EXITED: 'exited',
});

/** How a speech model's download stands (`DownloadState`). */
export const DownloadState = Object.freeze({
  RUNNING: 'running',
  DONE: 'done',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
});

/** Who speaks in a message (`clawmux_core::wire::Kind`). */
export const Kind = Object.freeze({
  USER: 'user',
  ASSISTANT: 'assistant',
  AGENT: 'agent',
  ACK: 'ack',
  ACTIVITY: 'activity',
  SYSTEM: 'system',
});

/** What an attached file is to the model (`clawmux_core::wire::AttachmentKind`). */
export const AttachmentKind = Object.freeze({
  IMAGE: 'image',
  TEXT: 'text',
  FILE: 'file',
});

/** The attachment limits the hub enforces, said before a file is sent (`clawmux_core::wire::MAX_*`). */
export const AttachmentLimit = Object.freeze({
  BYTES: 20971520,
  FILES: 10,
});

/** The error codes of `{code, message}` answers (`clawmux_core::wire::Code`). */
export const Code = Object.freeze({
  MALFORMED_JSON: 'malformed_json',
  MALFORMED_EVENT: 'malformed_event',
  UNKNOWN_EVENT: 'unknown_event',
  BAD_BODY: 'bad_body',
  BODY_TOO_LARGE: 'body_too_large',
  BAD_QUERY: 'bad_query',
  BAD_SESSION_HEADER: 'bad_session_header',
  MISSING_SESSION: 'missing_session',
  NOT_FOUND: 'not_found',
  UNAUTHORIZED: 'unauthorized',
  BAD_HOST: 'bad_host',
  BAD_ORIGIN: 'bad_origin',
  NOT_FOR_PHONES: 'not_for_phones',
  PHONES_OFF: 'phones_off',
  BAD_PAIRING_CODE: 'bad_pairing_code',
  UNKNOWN_PHONE: 'unknown_phone',
  BAD_PHONE_ADDRESS: 'bad_phone_address',
  BAD_PUSH_CONTACT: 'bad_push_contact',
  BAD_SUBSCRIPTION: 'bad_subscription',
  UNKNOWN_AGENT: 'unknown_agent',
  AGENT_EXISTS: 'agent_exists',
  BAD_AGENT_NAME: 'bad_agent_name',
  BAD_WORK_DIR: 'bad_work_dir',
  AGENT_DEAD: 'agent_dead',
  NOT_RUNNING: 'not_running',
  NOT_MANAGED: 'not_managed',
  FOLDER_NOT_TRUSTED: 'folder_not_trusted',
  CLAUDE_MISSING: 'claude_missing',
  TMUX_MISSING: 'tmux_missing',
  TMUX_FAILED: 'tmux_failed',
  BAD_MODEL: 'bad_model',
  BAD_SLASH_COMMAND: 'bad_slash_command',
  AGENT_BUSY: 'agent_busy',
  CORRUPT_LAUNCH: 'corrupt_launch',
  TERMINATE_FAILED: 'terminate_failed',
  NOT_A_REPOSITORY: 'not_a_repository',
  BAD_BASE: 'bad_base',
  DETACHED_HEAD: 'detached_head',
  BRANCH_EXISTS: 'branch_exists',
  WORKTREE_EXISTS: 'worktree_exists',
  NO_WORKTREE: 'no_worktree',
  GIT_MISSING: 'git_missing',
  GIT_FAILED: 'git_failed',
  UNCOMMITTED: 'uncommitted',
  NOTHING_TO_MERGE: 'nothing_to_merge',
  MERGE_CONFLICT: 'merge_conflict',
  BASE_DIRTY: 'base_dirty',
  UNSAVED_WORK: 'unsaved_work',
  AGENT_RUNNING: 'agent_running',
  NO_TERMINAL: 'no_terminal',
  BAD_TERMINAL_SIZE: 'bad_terminal_size',
  NO_SUCH_VIEWER: 'no_such_viewer',
  EMPTY_MESSAGE: 'empty_message',
  MESSAGE_TOO_LARGE: 'message_too_large',
  BAD_ATTACHMENT: 'bad_attachment',
  ATTACHMENT_TOO_LARGE: 'attachment_too_large',
  UNKNOWN_ATTACHMENT: 'unknown_attachment',
  BAD_MESSAGE_ID: 'bad_message_id',
  BAD_CURSOR: 'bad_cursor',
  NOT_PENDING: 'not_pending',
  NOT_DISMISSABLE: 'not_dismissable',
  UNKNOWN_CURSOR: 'unknown_cursor',
  UNKNOWN_PARENT: 'unknown_parent',
  IDEMPOTENCY_CONFLICT: 'idempotency_conflict',
  TO_ITSELF: 'to_itself',
  THREAD_CLOSED: 'thread_closed',
  THREAD_LIMIT: 'thread_limit',
  UNKNOWN_TASK: 'unknown_task',
  BAD_TASK: 'bad_task',
  TASK_REFUSED: 'task_refused',
  NOT_LEAD: 'not_lead',
  BAD_HISTORY: 'bad_history',
  UNKNOWN_LOG: 'unknown_log',
  BAD_VOICE_SETTINGS: 'bad_voice_settings',
  VOICE_SETTINGS_UNREADABLE: 'voice_settings_unreadable',
  VOICE_NOT_CONFIGURED: 'voice_not_configured',
  VOICE_SERVICE_UNREACHABLE: 'voice_service_unreachable',
  TRANSCRIPTION_FAILED: 'transcription_failed',
  SPEECH_FAILED: 'speech_failed',
  MODEL_NOT_DOWNLOADED: 'model_not_downloaded',
  MODEL_UNUSABLE: 'model_unusable',
  VOICE_NOT_DOWNLOADED: 'voice_not_downloaded',
  DOWNLOAD_FAILED: 'download_failed',
  DOWNLOAD_CANCELLED: 'download_cancelled',
  DOWNLOAD_IN_PROGRESS: 'download_in_progress',
  NOTHING_HEARD: 'nothing_heard',
  BAD_TEXT: 'bad_text',
  NOT_AUDIO: 'not_audio',
  EMPTY_RECORDING: 'empty_recording',
  BAD_RECORDING_ID: 'bad_recording_id',
  NO_SUCH_RECORDING: 'no_such_recording',
  ALREADY_RECORDING: 'already_recording',
  NOT_RECORDING: 'not_recording',
  NO_MICROPHONE: 'no_microphone',
  RECORDING_FAILED: 'recording_failed',
  CANNOT_SAVE: 'cannot_save',
  BAD_MACHINE: 'bad_machine',
  UNKNOWN_MACHINE: 'unknown_machine',
  MACHINE_EXISTS: 'machine_exists',
  MACHINE_UNREACHABLE: 'machine_unreachable',
  STARTUP: 'startup',
  NOT_SERVING: 'not_serving',
  HUB_UNAVAILABLE: 'hub_unavailable',
  CORRUPT_STORE: 'corrupt_store',
  DATABASE: 'database',
  INTERNAL: 'internal',
});

/** The `type` of each event the hub sends to the UI (`UiEventType`). */
export const UiEvent = Object.freeze({
  MACHINE_LINK: 'machine_link',
  MACHINE_EVENT: 'machine_event',
  SESSION_LIST: 'session_list',
  SESSION_STATUS: 'session_status',
  USER_TEXT: 'user_text',
  ASSISTANT_TEXT: 'assistant_text',
  AGENT_MESSAGE: 'agent_message',
  USER_ACK: 'user_ack',
  ACTIVITY_TEXT: 'activity_text',
  SYSTEM_TEXT: 'system_text',
  INBOX_UPDATE: 'inbox_update',
  SEEN: 'seen',
  TASK: 'task',
  SESSION_SPAWNED: 'session_spawned',
  SESSION_TERMINATED: 'session_terminated',
  SESSION_PROBLEM: 'session_problem',
  CHANGES: 'changes',
  FORECAST: 'forecast',
  BACKGROUND: 'background',
  USAGE: 'usage',
  LIMITS: 'limits',
  SEARCH_INDEX: 'search_index',
  SESSIONS_READ: 'sessions_read',
  MODEL_DOWNLOAD: 'model_download',
  VOICE_DOWNLOAD: 'voice_download',
  RESET: 'reset',
  PING: 'ping',
  ERROR: 'error',
});

/** The commands of the hub's UI surface (`CommandName`). */
export const Command = Object.freeze({
  MACHINES: 'machines',
  MACHINE_ADD: 'machine_add',
  MACHINE_REMOVE: 'machine_remove',
  ON_MACHINE: 'on_machine',
  SESSIONS: 'sessions',
  ADD_AGENT: 'add_agent',
  USER_MESSAGE: 'user_message',
  ATTACH: 'attach',
  ATTACHMENT_IMAGE: 'attachment_image',
  PHONE: 'phone',
  SET_PHONE: 'set_phone',
  SET_PHONE_ADDRESS: 'set_phone_address',
  SET_PUSH_CONTACT: 'set_push_contact',
  PHONE_PAIR: 'phone_pair',
  PHONE_REVOKE: 'phone_revoke',
  PRESENT: 'present',
  THREADS: 'threads',
  THREAD: 'thread',
  CLOSE_THREAD: 'close_thread',
  REOPEN_THREAD: 'reopen_thread',
  THREAD_REPLY: 'thread_reply',
  FROM_MACHINE: 'from_machine',
  FOR_MACHINE: 'for_machine',
  BOARD: 'board',
  TASK_ADD: 'task_add',
  TASK_MOVE: 'task_move',
  HAND_OVER: 'hand_over',
  LEADS: 'leads',
  SET_LEAD: 'set_lead',
  REVOKE_LEAD: 'revoke_lead',
  MARK_READ: 'mark_read',
  SPAWN: 'spawn',
  TERMINATE: 'terminate',
  RESTART: 'restart',
  SET_MODEL: 'set_model',
  SET_EFFORT: 'set_effort',
  SLASH_COMMANDS: 'slash_commands',
  SLASH: 'slash',
  RESUME_INTERRUPTED: 'resume_interrupted',
  PREFERENCES: 'preferences',
  SET_PREFERENCES: 'set_preferences',
  INTERRUPT: 'interrupt',
  ANSWER: 'answer',
  EXPLAIN: 'explain',
  DISMISS: 'dismiss',
  REPORT: 'report',
  CAPABILITIES: 'capabilities',
  DOCTOR: 'doctor',
  IMPORT: 'import',
  VOICE_SETTINGS: 'voice_settings',
  SET_VOICE_SETTINGS: 'set_voice_settings',
  VOICE_MODELS: 'voice_models',
  DOWNLOAD_MODEL: 'download_model',
  DOWNLOAD_VOICE: 'download_voice',
  CANCEL_DOWNLOAD: 'cancel_download',
  WARM_VOICE: 'warm_voice',
  HEAR: 'hear',
  HISTORY: 'history',
  CHANGES: 'changes',
  REPOSITORY: 'repository',
  WORKTREES: 'worktrees',
  REMOVE_WORKTREE: 'remove_worktree',
  MERGE: 'merge',
  USAGE: 'usage',
  USAGE_CONTINUE: 'usage_continue',
  SEARCH: 'search',
  SEARCH_SESSIONS: 'search_sessions',
});

/** Who spoke, as search filters it (`clawmux_hub::search::Who`). */
export const Who = Object.freeze({
  USER: 'user',
  AGENTS: 'agents',
});

/** What an agent needs the user for (`clawmux_core::Need`). */
export const Need = Object.freeze({
  PERMISSION: 'permission',
  ANSWER: 'answer',
  PLAN_APPROVAL: 'plan_approval',
  ERROR: 'error',
  RATE_LIMITED: 'rate_limited',
  UNDELIVERED: 'undelivered',
});

/** Where a message between agents is (`clawmux_core::between::Delivery`). */
export const Delivery = Object.freeze({
  QUEUED: 'queued',
  HANDED_OVER: 'handed_over',
  SEEN: 'seen',
  ANSWERED: 'answered',
  NOT_A_TURN: 'not_a_turn',
});

/** Where an item of the board is (`clawmux_core::board::TaskState`). */
export const TaskState = Object.freeze({
  OPEN: 'open',
  TAKEN: 'taken',
  IN_REVIEW: 'in_review',
  DONE: 'done',
});

/** What is done to an item of the board (`clawmux_core::board::Move`, its `op`). */
export const TaskOp = Object.freeze({
  TAKE: 'take',
  REVIEW: 'review',
  DONE: 'done',
  DROP: 'drop',
  ASSIGN: 'assign',
});

/** The account's limit windows (`clawmux_core::usage::Window`). */
export const Window = Object.freeze({
  FIVE_HOUR: 'five_hour',
  SEVEN_DAY: 'seven_day',
});

/** How an agent's branch goes into its base (`clawmux_core::changes::MergeMode`). */
export const MergeMode = Object.freeze({
  MERGE: 'merge',
  SQUASH: 'squash',
  REBASE: 'rebase',
});

/** How a file changed in an agent's worktree (`clawmux_core::changes::FileStatus`). */
export const FileStatus = Object.freeze({
  ADDED: 'added',
  MODIFIED: 'modified',
  DELETED: 'deleted',
  RENAMED: 'renamed',
  COPIED: 'copied',
  TYPE_CHANGED: 'type_changed',
});

/** What the Changes panel shows of a file (`clawmux_core::changes::Shown`). */
export const Shown = Object.freeze({
  DIFF: 'diff',
  BINARY: 'binary',
  HUGE: 'huge',
  GENERATED: 'generated',
});

/** The user's answer to a request (`Verdict`). */
export const Verdict = Object.freeze({
  ALLOW: 'allow',
  ALLOW_ALWAYS: 'allow_always',
  DENY: 'deny',
});

/** Where a slash command comes from (`SlashSource`). */
export const SlashSource = Object.freeze({
  BUILT_IN: 'built_in',
  USER: 'user',
  PROJECT: 'project',
});

/** Claude Code's effort levels (`Effort`), as its `--effort` spells them. */
export const Effort = Object.freeze({
  LOW: 'low',
  MEDIUM: 'medium',
  HIGH: 'high',
  XHIGH: 'xhigh',
  MAX: 'max',
});

/** Claude Code's permission modes (`PermissionMode`), as its `--permission-mode` spells them. */
export const PermissionMode = Object.freeze({
  DEFAULT: 'default',
  ACCEPT_EDITS: 'acceptEdits',
  PLAN: 'plan',
  AUTO: 'auto',
  BYPASS_PERMISSIONS: 'bypassPermissions',
});

/** Where speech becomes text (`clawmux_voice::SpeechToText`). */
export const SpeechToText = Object.freeze({
  DEVICE: 'device',
  SERVICE: 'service',
});

/** Where text becomes speech (`clawmux_voice::TextToSpeech`). */
export const TextToSpeech = Object.freeze({
  DEVICE: 'device',
  SERVICE: 'service',
  WINDOW: 'window',
});

/** The voices the device can download (`clawmux_voice::piper::LocalVoice`). */
export const LocalVoice = Object.freeze({
  JOE_MEDIUM: 'en_US-joe-medium',
});

/** The speech models the device can download (`clawmux_voice::local::LocalModel`). */
export const LocalModel = Object.freeze({
  TINY_EN: 'tiny.en',
  BASE_EN: 'base.en',
  SMALL_EN: 'small.en',
});

/** The `type` of what the hub tells a terminal viewer besides the bytes (`TerminalNoticeType`). */
export const TerminalNotice = Object.freeze({
  ATTACHED: 'attached',
  UNAVAILABLE: 'unavailable',
  REFUSED: 'refused',
  ENDED: 'ended',
});

/** What the desktop app's hands-free listener heard (`ListenedType`). */
export const Listened = Object.freeze({
  START: 'start',
  UTTERANCE: 'utterance',
  DROPPED: 'dropped',
  MICROPHONE_LOST: 'microphone_lost',
});

/** The `type` of what a terminal viewer sends besides keys (`TerminalInputType`). */
export const TerminalInput = Object.freeze({
  INPUT: 'input',
  RESIZE: 'resize',
});

/** Whether the hub listens for phones at an address of the user's own (`phone::Listening`'s `state`). */
export const Listening = Object.freeze({
  NO: 'no',
  AT: 'at',
  FAILED: 'failed',
});

/** How a check of "Check this machine" came out (`doctor::Status`). */
export const DoctorStatus = Object.freeze({
  OK: 'ok',
  WARN: 'warn',
  FAIL: 'fail',
  SKIP: 'skip',
});
