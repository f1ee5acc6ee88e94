//! What the store's tests share: a fresh store in a temporary folder, with agent `sky`, and a message from
//! the user.

#![allow(clippy::unwrap_used)]

use clawmux_core::wire::Kind;
use clawmux_core::Millis;
use clawmux_store::{NewMessage, Store};

/// A store in a temporary folder (kept with the folder), with agent `sky`.
pub async fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawmux.db")).await.unwrap();
    store.add_agent("sky", "/w/sky", Millis(1)).await.unwrap();
    (dir, store)
}

/// The user's message `text` to `agent`.
pub fn user_to(agent: &str, text: &str) -> NewMessage<'static> {
    let agent: &'static str = Box::leak(agent.to_owned().into_boxed_str());
    let text: &'static str = Box::leak(text.to_owned().into_boxed_str());
    NewMessage {
        agent,
        kind: Kind::User,
        sender: "user",
        recipient: Some(agent),
        text,
        parent: None,
        voice: false,
        aloud: false,
        attachments: &[],
        idem_key: None,
        at: Millis(10),
    }
}

/// A database at `path` migrated only as far as the migrations before `version`: what an older ClawMux
/// left, for a test of the migrations that follow. Returns the connection that made it.
pub async fn older_database(path: &std::path::Path, version: i64) -> sqlx::SqliteConnection {
    use sqlx::Connection;
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true);
    let mut conn = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    let mut before = sqlx::migrate!("./migrations");
    let older: Vec<_> = before
        .migrations
        .iter()
        .filter(|m| m.version < version)
        .cloned()
        .collect();
    before.migrations = older.into();
    before.run(&mut conn).await.unwrap();
    conn
}
