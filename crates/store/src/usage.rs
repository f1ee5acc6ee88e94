//! Usage history: the samples of what each agent used, as the status line reported them, and their sums
//! per day and agent for the usage view. Appended one short statement at a time (a sample comes at most a
//! few times a second per agent, and only when a figure moved), never in a hook's transaction.

use clawmux_core::Millis;

use crate::{Store, StoreError};
pub use clawmux_core::usage::DayUsage;

/// What a sample added to an agent's use since its sample before.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct UsageDelta {
    /// US dollars, as Claude Code estimates them.
    pub cost: f64,
    /// Input tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
}

fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store {
    /// Appends a sample of `agent`'s use (`sample`: its JSON) with what it added.
    pub async fn append_usage(
        &self,
        agent: &str,
        at: Millis,
        delta: UsageDelta,
        sample: &str,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO usage_samples (agent, at, cost_delta, input_delta, output_delta, sample) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .bind(agent)
        .bind(at.0)
        .bind(delta.cost.max(0.0))
        .bind(int(delta.input))
        .bind(int(delta.output))
        .bind(sample)
        .execute(&mut self.write().await.conn)
        .await?;
        Ok(())
    }

    /// Each agent's latest sample (its JSON), to start from after a restart.
    pub async fn latest_usage(&self) -> Result<Vec<(String, String)>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT agent, sample FROM usage_samples \
             WHERE id IN (SELECT MAX(id) FROM usage_samples GROUP BY agent) ORDER BY agent",
        )
        .fetch_all(&self.reader)
        .await?)
    }

    /// Opts `agent` in (or out) of being continued when the usage limit resets.
    pub async fn set_usage_continue(&self, agent: &str, on: bool) -> Result<(), StoreError> {
        let sql = if on {
            "INSERT OR IGNORE INTO usage_continue (agent) VALUES (?1)"
        } else {
            "DELETE FROM usage_continue WHERE agent = ?1"
        };
        sqlx::query(sql)
            .bind(agent)
            .execute(&mut self.write().await.conn)
            .await?;
        Ok(())
    }

    /// The agents opted in to be continued when the usage limit resets.
    pub async fn usage_continues(&self) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT agent FROM usage_continue ORDER BY agent")
                .fetch_all(&self.reader)
                .await?,
        )
    }

    /// The samples (their JSON) of the account's limits since `since`, oldest first: the pace they rise at.
    pub async fn usage_since(&self, since: Millis) -> Result<Vec<String>, StoreError> {
        Ok(
            sqlx::query_scalar("SELECT sample FROM usage_samples WHERE at >= ?1 ORDER BY id")
                .bind(since.0)
                .fetch_all(&self.reader)
                .await?,
        )
    }

    /// What each agent used on each day since `since`, days cut at midnight `offset_minutes` east of UTC,
    /// oldest day first.
    pub async fn usage_by_day(
        &self,
        since: Millis,
        offset_minutes: i32,
    ) -> Result<Vec<DayUsage>, StoreError> {
        let rows: Vec<(String, String, f64, i64, i64)> = sqlx::query_as(
            "SELECT date((at / 1000) + ?2 * 60, 'unixepoch') AS day, agent, \
                    SUM(cost_delta), SUM(input_delta), SUM(output_delta) \
             FROM usage_samples WHERE at >= ?1 GROUP BY day, agent ORDER BY day, agent",
        )
        .bind(since.0)
        .bind(offset_minutes)
        .fetch_all(&self.reader)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(day, agent, cost, input, output)| DayUsage {
                day,
                agent,
                cost,
                input: u64::try_from(input).unwrap_or(0),
                output: u64::try_from(output).unwrap_or(0),
            })
            .collect())
    }
}
