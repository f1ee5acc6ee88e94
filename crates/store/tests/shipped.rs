//! Data across versions: a store written by any schema the project has shipped opens in this version with
//! nothing lost, copied aside first; a store a newer version wrote is refused and left as it is.
//!
//! Each earlier schema is built from the migrations' history, as far as that version went, with the data a
//! user of that version would have had (`shipped/<version>.sql`, run after the migration it names), and then
//! opened by this version.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use clawmux_core::wire::{Kind, MsgId};
use clawmux_core::Millis;
use clawmux_store::{NewMessage, SearchQuery, Store, StoreError, TaskFilter, BACKUPS_DIR};
use sqlx::Connection;

/// Where each schema's data is kept.
const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/shipped");

/// The schemas that brought phones, the board and leads (`migrations/`).
const PHONES: i64 = 20261130000000;
const BOARD: i64 = 20261204000000;
const LEADS: i64 = 20261205000000;
const ATTACHMENTS: i64 = 20261129000000;

/// The versions of every migration, in order.
fn versions() -> Vec<i64> {
    sqlx::migrate!("./migrations")
        .iter()
        .map(|m| m.version)
        .collect()
}

/// Writes at `path` the store a version whose last migration was the `upto`-th left behind: each migration
/// run as that version ran it (WAL, as every version opened it), each followed by its data.
async fn shipped_store(path: &Path, upto: usize) {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(path)
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
        .foreign_keys(true);
    let mut conn = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    let all = sqlx::migrate!("./migrations");
    for i in 0..upto {
        let mut step = sqlx::migrate!("./migrations");
        step.migrations = all.migrations[..=i].to_vec().into();
        step.run(&mut conn).await.unwrap();
        let data = Path::new(SHIPPED).join(format!("{}.sql", all.migrations[i].version));
        if let Ok(sql) = std::fs::read_to_string(&data) {
            sqlx::raw_sql(&sql)
                .execute(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("{}: {e}", data.display()));
        }
    }
    conn.close().await.unwrap();
}

/// Every row of every table of the file (search's own tables aside): per table, its columns and its rows
/// as SQL literals.
type Rows = BTreeMap<String, (Vec<String>, Vec<Vec<String>>)>;

/// The one text column `sql` selects, row by row.
fn texts(conn: &rusqlite::Connection, sql: &str) -> Vec<String> {
    let mut query = conn.prepare(sql).unwrap();
    query
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn rows(path: &Path) -> Rows {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let names = texts(
        &conn,
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' \
         AND name NOT LIKE '%_fts%' AND name <> '_sqlx_migrations'",
    );
    let mut all = Rows::new();
    for table in names {
        let columns = texts(
            &conn,
            &format!("SELECT name FROM pragma_table_xinfo('{table}') WHERE hidden <> 1"),
        );
        let quoted: Vec<String> = columns.iter().map(|c| format!("quote(\"{c}\")")).collect();
        let mut select = conn
            .prepare(&format!("SELECT {} FROM \"{table}\"", quoted.join(", ")))
            .unwrap();
        let mut found: Vec<Vec<String>> = select
            .query_map([], |r| (0..columns.len()).map(|i| r.get(i)).collect())
            .unwrap()
            .map(Result::unwrap)
            .collect();
        found.sort();
        all.insert(table, (columns, found));
    }
    all
}

/// Every row `before` held is in `after`, column for column (later schemas only add columns and tables).
fn nothing_lost(before: &Rows, after: &Rows, schema: i64) {
    for (table, (columns, old)) in before {
        let (new_columns, new) = after
            .get(table)
            .unwrap_or_else(|| panic!("schema {schema}: table {table} is gone"));
        let kept: Vec<usize> = columns
            .iter()
            .map(|c| {
                new_columns
                    .iter()
                    .position(|n| n == c)
                    .unwrap_or_else(|| panic!("schema {schema}: {table}.{c} is gone"))
            })
            .collect();
        let mut projected: Vec<Vec<String>> = new
            .iter()
            .map(|row| kept.iter().map(|&i| row[i].clone()).collect())
            .collect();
        projected.sort();
        assert_eq!(&projected, old, "schema {schema}: the rows of {table}");
    }
}

/// The copies made before upgrades, oldest first.
fn backups(data: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(data.join(BACKUPS_DIR)) else {
        return Vec::new();
    };
    let mut copies: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    copies.sort();
    copies
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[tokio::test]
async fn every_shipped_schema_opens_with_nothing_lost() {
    let versions = versions();
    for upto in 1..=versions.len() {
        let schema = versions[upto - 1];
        let data = tempfile::tempdir().unwrap();
        let path = data.path().join("clawmux.db");
        shipped_store(&path, upto).await;
        let before = rows(&path);

        let store = Store::open(&path)
            .await
            .unwrap_or_else(|e| panic!("schema {schema}: {e}"));
        nothing_lost(&before, &rows(&path), schema);

        // Everything the old version kept, this one can read.
        let names: Vec<String> = store
            .agents()
            .await
            .unwrap_or_else(|e| panic!("schema {schema}: {e}"))
            .into_iter()
            .map(|a| a.name)
            .collect();
        assert!(names.contains(&"ada".to_owned()) && names.contains(&"bob".to_owned()));
        let ada = store.agent("ada").await.unwrap();
        assert_eq!(
            (ada.read_cursor, ada.inbox_cursor),
            (2, 1),
            "schema {schema}"
        );
        let said = store
            .latest("ada", 10)
            .await
            .unwrap_or_else(|e| panic!("schema {schema}: {e}"));
        let attached: usize = said.iter().map(|m| m.attachments.len()).sum();
        assert_eq!(
            attached,
            usize::from(schema >= ATTACHMENTS),
            "schema {schema}"
        );
        let texts: Vec<String> = said.into_iter().map(|m| m.text).collect();
        assert_eq!(
            &texts[..2],
            [
                "where is the lighthouse keeper",
                "the lighthouse keeper went north"
            ],
            "schema {schema}"
        );
        assert_eq!(store.pending("ada").await.unwrap(), texts.len() as i64 - 2);
        // What was said before search came is found once its indexing has caught up.
        while store.index_older(100).await.unwrap().is_some() {}
        let found = store
            .search(&SearchQuery {
                fts: "lighthouse".into(),
                agent: None,
                kinds: Vec::new(),
                since: None,
                before: None,
                limit: 10,
            })
            .await
            .unwrap();
        assert!(found.len() >= 2, "schema {schema}: found {}", found.len());
        let phones = usize::from(schema >= PHONES);
        assert_eq!(
            store.phones().await.unwrap().len(),
            phones,
            "schema {schema}"
        );
        if schema >= BOARD {
            let tasks = store
                .tasks(&TaskFilter {
                    state: None,
                    owner: None,
                    text: None,
                    limit: 10,
                })
                .await
                .unwrap();
            assert_eq!(tasks.len(), 1, "schema {schema}");
        }
        if schema >= LEADS {
            assert_eq!(store.leads().await.unwrap()[0].tools, ["Bash"]);
        }

        // And it goes on from where the old version stopped: nothing taken twice, no key reused.
        let next = store
            .append(&NewMessage {
                agent: "ada",
                kind: Kind::User,
                sender: "user",
                recipient: Some("ada"),
                text: "one more",
                parent: None,
                voice: false,
                aloud: false,
                attachments: &[],
                idem_key: None,
                at: Millis(1_800_000_000_000),
            })
            .await
            .unwrap_or_else(|e| panic!("schema {schema}: {e}"));
        let stored = before["messages"].1.len() as i64;
        assert_eq!(next.message.seq, stored + 1, "schema {schema}");
        assert!(store
            .message(&MsgId::parse("msg-00000001").unwrap())
            .await
            .unwrap()
            .is_some());
        store.close().await;
        drop(store);

        let copies = backups(data.path());
        if upto < versions.len() {
            assert_eq!(
                copies.len(),
                1,
                "schema {schema}: one copy before the upgrade"
            );
            assert_eq!(
                rows(&copies[0]),
                before,
                "schema {schema}: the copy is the old store"
            );
        } else {
            assert!(copies.is_empty(), "a store of this version is not copied");
        }
    }
}

#[test]
fn every_migration_has_the_data_of_its_version() {
    for version in versions() {
        let data = Path::new(SHIPPED).join(format!("{version}.sql"));
        assert!(
            data.exists(),
            "{} is missing: a new migration brings the data a store of its version holds \
             (or a comment saying why it adds none)",
            data.display()
        );
    }
}

#[tokio::test]
async fn a_store_from_a_newer_version_is_refused_and_left_as_it_is() {
    let data = tempfile::tempdir().unwrap();
    let path = data.path().join("clawmux.db");
    shipped_store(&path, versions().len()).await;
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
             VALUES (29991231000000, 'from the future', 1, x'00', 1); \
             CREATE TABLE from_the_future (x INTEGER);",
        )
        .unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();

    let refused = Store::open(&path).await.unwrap_err();

    assert!(
        matches!(
            refused,
            StoreError::Newer {
                written: 29991231000000,
                ..
            }
        ),
        "{refused:?}"
    );
    let said = refused.to_string();
    assert!(
        said.contains("newer ClawMux") && said.contains("left as it is"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the file is unchanged"
    );
    assert!(backups(data.path()).is_empty());
}

#[tokio::test]
async fn the_newest_three_copies_are_kept_private() {
    let data = tempfile::tempdir().unwrap();
    let path = data.path().join("clawmux.db");
    let older = versions().len() - 1;
    let mut made = Vec::new();
    for _ in 0..5 {
        for file in ["clawmux.db", "clawmux.db-wal", "clawmux.db-shm"] {
            let _ = std::fs::remove_file(data.path().join(file));
        }
        shipped_store(&path, older).await;
        let store = Store::open(&path).await.unwrap();
        store.close().await;
        drop(store);
        made.push(backups(data.path()).last().unwrap().clone());
    }

    let kept = backups(data.path());
    assert_eq!(
        kept,
        made[2..],
        "the newest three, in the order they were made"
    );
    assert_eq!(mode(&data.path().join(BACKUPS_DIR)), 0o700);
    for copy in &kept {
        assert_eq!(mode(copy), 0o600, "{}", copy.display());
    }
}

#[tokio::test]
async fn an_empty_file_is_a_new_store() {
    // What the hub leaves before it opens the store: the file made private, empty.
    let data = tempfile::tempdir().unwrap();
    let path = data.path().join("clawmux.db");
    std::fs::write(&path, b"").unwrap();

    let store = Store::open(&path).await.unwrap();

    assert!(store.agents().await.unwrap().is_empty());
    assert!(backups(data.path()).is_empty());
}
