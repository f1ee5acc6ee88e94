//! Tests of `lead`, with the agents' states over a store in a temporary folder.

use super::*;
use crate::states::fixture::{fixture_with, Fixture};
use clawmux_core::Millis;

async fn leads() -> (Fixture, Leads) {
    let f = fixture_with(&["moon", "rain"]).await;
    let leads = Leads::new(
        f.states.clone(),
        Inbox::new(f.states.clone()),
        Requests::new(f.states.agents().clone(), f.finds.clone()),
    );
    (f, leads)
}

fn names(n: &[&str]) -> Vec<String> {
    n.iter().map(|s| (*s).to_owned()).collect()
}

#[tokio::test]
async fn a_lead_is_told_its_right_which_is_read_only_unless_named_and_taken_back_at_once() {
    let (f, leads) = leads().await;
    let grants = leads
        .set("moon", &names(&["sky", "rain"]), None)
        .await
        .unwrap();
    assert_eq!(grants.len(), 2);
    assert!(grants
        .iter()
        .all(|g| g.lead == "moon" && g.tools.contains(&"Read".to_owned())));
    assert!(!grants[0].tools.contains(&"Bash".to_owned()));
    let told = f
        .states
        .store()
        .take_inbox("moon", clawmux_store::Channel::Wait, Millis(1))
        .await
        .unwrap();
    assert!(
        told[0]
            .text
            .starts_with("The user made you the lead of sky, rain"),
        "{told:?}"
    );
    // Another lead for sky replaces moon for sky only.
    let grants = leads
        .set("rain", &names(&["sky"]), Some(&names(&["Bash"])))
        .await
        .unwrap();
    let sky = grants.iter().find(|g| g.member == "sky").unwrap();
    assert_eq!(
        (sky.lead.as_str(), sky.tools.clone()),
        ("rain", names(&["Bash"]))
    );
    assert_eq!(leads.revoke("moon").await.unwrap().len(), 1);
    assert!(leads.list().await.unwrap().iter().all(|g| g.lead == "rain"));
}

#[tokio::test]
async fn a_lead_of_itself_of_nobody_or_of_an_unknown_agent_is_refused_and_changes_nothing() {
    let (_f, leads) = leads().await;
    let refused = |e: HubError| e.code;
    assert_eq!(
        refused(
            leads
                .set("moon", &names(&["moon"]), None)
                .await
                .unwrap_err()
        ),
        Code::ToItself
    );
    assert_eq!(
        refused(leads.set("moon", &[], None).await.unwrap_err()),
        Code::BadQuery
    );
    assert_eq!(
        refused(
            leads
                .set("moon", &names(&["nobody"]), None)
                .await
                .unwrap_err()
        ),
        Code::UnknownAgent
    );
    assert_eq!(
        refused(
            leads
                .set("nobody", &names(&["sky"]), None)
                .await
                .unwrap_err()
        ),
        Code::UnknownAgent
    );
    assert_eq!(
        refused(
            leads
                .set("moon", &names(&["sky"]), Some(&names(&[" "])))
                .await
                .unwrap_err()
        ),
        Code::BadQuery
    );
    assert!(leads.list().await.unwrap().is_empty());
    assert_eq!(
        refused(
            leads
                .answer("moon", "sky", "r1", true, None)
                .await
                .unwrap_err()
        ),
        Code::NotPending
    );
}
