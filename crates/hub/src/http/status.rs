//! The one place where an error code gets its HTTP status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use clawmux_core::wire::Code;

use crate::error::HubError;

/// The HTTP status that fits an error code.
/// Long: a table from each error code to its HTTP status.
pub(crate) fn status(code: Code) -> StatusCode {
    match code {
        Code::MalformedJson
        | Code::MalformedEvent
        | Code::UnknownEvent
        | Code::BadBody
        | Code::BadQuery
        | Code::BadTask
        | Code::BadSessionHeader
        | Code::MissingSession
        | Code::BadAgentName
        | Code::BadWorkDir
        | Code::NotARepository
        | Code::BadBase
        | Code::DetachedHead
        | Code::ClaudeMissing
        | Code::EmptyMessage
        | Code::BadAttachment
        | Code::BadMessageId
        | Code::BadCursor
        | Code::UnknownCursor
        | Code::UnknownParent
        | Code::BadHistory
        | Code::UnknownLog
        | Code::BadVoiceSettings
        | Code::BadText
        | Code::EmptyRecording
        | Code::BadRecordingId
        | Code::BadTerminalSize
        | Code::BadMachine
        | Code::BadModel
        | Code::BadSlashCommand
        | Code::BadSubscription
        | Code::BadPhoneAddress
        | Code::BadPushContact => StatusCode::BAD_REQUEST,
        Code::Unauthorized | Code::BadPairingCode => StatusCode::UNAUTHORIZED,
        Code::BadHost | Code::BadOrigin | Code::NotForPhones | Code::PhonesOff => {
            StatusCode::FORBIDDEN
        }
        Code::NotFound
        | Code::UnknownAgent
        | Code::UnknownTask
        | Code::UnknownMachine
        | Code::NoSuchRecording
        | Code::UnknownAttachment
        | Code::UnknownPhone
        | Code::NoSuchViewer => StatusCode::NOT_FOUND,
        Code::AgentExists
        | Code::AgentDead
        | Code::NotRunning
        | Code::NotManaged
        | Code::AgentBusy
        | Code::NoTerminal
        | Code::NotPending
        | Code::NotDismissable
        | Code::FolderNotTrusted
        | Code::BranchExists
        | Code::WorktreeExists
        | Code::NoWorktree
        | Code::Uncommitted
        | Code::NothingToMerge
        | Code::MergeConflict
        | Code::BaseDirty
        | Code::UnsavedWork
        | Code::AgentRunning
        | Code::IdempotencyConflict
        | Code::ToItself
        | Code::ThreadClosed
        | Code::TaskRefused
        | Code::NotLead
        | Code::VoiceNotConfigured
        | Code::AlreadyRecording
        | Code::ModelNotDownloaded
        | Code::VoiceNotDownloaded
        | Code::DownloadCancelled
        | Code::DownloadInProgress
        | Code::NotRecording
        | Code::MachineExists => StatusCode::CONFLICT,
        Code::BodyTooLarge | Code::MessageTooLarge | Code::AttachmentTooLarge => {
            StatusCode::PAYLOAD_TOO_LARGE
        }
        Code::NotAudio => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Code::ThreadLimit => StatusCode::TOO_MANY_REQUESTS,
        Code::NothingHeard => StatusCode::UNPROCESSABLE_ENTITY,
        Code::VoiceServiceUnreachable
        | Code::TranscriptionFailed
        | Code::SpeechFailed
        | Code::DownloadFailed
        | Code::MachineUnreachable => StatusCode::BAD_GATEWAY,
        Code::TmuxMissing
        | Code::GitMissing
        | Code::NotServing
        | Code::HubUnavailable
        | Code::NoMicrophone => StatusCode::SERVICE_UNAVAILABLE,
        Code::TmuxFailed
        | Code::GitFailed
        | Code::CorruptLaunch
        | Code::TerminateFailed
        | Code::VoiceSettingsUnreadable
        | Code::RecordingFailed
        | Code::ModelUnusable
        | Code::CannotSave
        | Code::Startup
        | Code::CorruptStore
        | Code::Database
        | Code::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for HubError {
    fn into_response(self) -> Response {
        let body = serde_json::json!({ "code": self.code, "message": self.message });
        (status(self.code), axum::Json(body)).into_response()
    }
}
