//! What other features ask of the agents' lifecycle, one way (usage's notes, an agent continued after its
//! usage limit reset): they hold only the sending half, and one task that `serve` starts carries the
//! errands out, in order, until it stops.

use tokio::sync::mpsc;

use super::Lifecycle;
use crate::usage::Errand;

/// Carries out `errands` until every sender is gone (a task of the hub's, stopped when `serve` ends).
pub(crate) async fn errands(lifecycle: Lifecycle, mut errands: mpsc::UnboundedReceiver<Errand>) {
    while let Some(errand) = errands.recv().await {
        match errand {
            Errand::Note { agent, text } => lifecycle.note(&agent, &text).await,
            // Typing waits for the agent to take the prompt: the notes of others go on meanwhile.
            Errand::Continue { agent, prompt } => {
                let typing = lifecycle.clone();
                lifecycle.tasks.spawn(async move {
                    continue_after_reset(&typing, &agent, prompt).await;
                });
            }
        }
    }
}

/// Types `prompt` into `agent`'s terminal, and says in its conversation whether that worked.
async fn continue_after_reset(lifecycle: &Lifecycle, agent: &str, prompt: &str) {
    if let Err(e) = lifecycle.type_prompt(agent, prompt).await {
        tracing::warn!(agent, error = %e, "cannot continue the agent after the reset");
        lifecycle
            .note(
                agent,
                &format!("`{agent}` could not be continued after the usage limit reset: {e}."),
            )
            .await;
        return;
    }
    tracing::info!(agent, "continued after the usage limit reset");
    lifecycle
        .note(
            agent,
            &format!("`{agent}` was continued: the usage limit that stopped it reset."),
        )
        .await;
}
