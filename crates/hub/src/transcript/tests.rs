//! Tests of `transcript.rs`.

use super::*;

/// A watch that could not start is not tried again at every hook (each try starts a thread), but
/// it is tried again: a moment later, or at once for another path. A running watch stands as it is.
#[tokio::test(start_paused = true)]
async fn a_watch_that_could_not_start_is_tried_again_a_moment_later() {
    let path = Path::new("/p/-w/s1.jsonl");
    let failed = tokio::spawn(async {});
    let watching = Watching {
        path: path.to_owned(),
        task: failed.abort_handle(),
        since: tokio::time::Instant::now(),
        from: 0,
    };
    failed.await.unwrap();
    assert!(covers(&watching, path), "tried again at once");
    assert!(!covers(&watching, Path::new("/p/-w/s2.jsonl")));
    tokio::time::advance(RETRY_WATCH - std::time::Duration::from_millis(1)).await;
    assert!(covers(&watching, path), "tried again too soon");
    tokio::time::advance(std::time::Duration::from_millis(1)).await;
    assert!(!covers(&watching, path), "never tried again");

    let running = tokio::spawn(std::future::pending::<()>());
    let watching = Watching {
        path: path.to_owned(),
        task: running.abort_handle(),
        since: tokio::time::Instant::now(),
        from: 0,
    };
    tokio::time::advance(RETRY_WATCH * 100).await;
    assert!(covers(&watching, path), "a running watch was started again");
    assert!(!covers(&watching, Path::new("/p/-w/s2.jsonl")));
}

/// What the agent writes once its hook is answered is read, however late the watch's task runs; what
/// the transcript held before is not replayed. Its answers go to usage, its entries to the machine, the
/// messages it shows the model received to `between`.
#[tokio::test]
async fn an_answer_written_right_after_the_hook_is_counted() {
    use std::io::Write;
    let f = crate::states::fixture::fixture().await;
    let mut events = f.events.resubscribe();
    let store = f.states.store().clone();
    store.add_agent("moon", "/w/moon", Millis(1)).await.unwrap();
    let from_moon = store
        .append(&clawmux_store::NewMessage {
            agent: "sky",
            kind: clawmux_core::wire::Kind::Agent,
            sender: "moon",
            recipient: Some("sky"),
            text: "the API changed",
            parent: None,
            voice: false,
            aloud: false,
            attachments: &[],
            idem_key: None,
            at: Millis(5),
        })
        .await
        .unwrap()
        .message;
    let (transcripts, mut found) = transcripts(&f);
    let path = f.dir.path().join("sky.jsonl");
    let answer = |id: &str, output: u64| {
        format!(
                "{{\"type\":\"assistant\",\"timestamp\":\"2026-11-26T01:00:00Z\",\"message\":{{\"id\":\"{id}\",\
                 \"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":{output}}}}}}}\n"
            )
    };
    std::fs::write(&path, answer("before", 1000)).unwrap();
    transcripts.follow("sky", &naming(&path));
    // The agent answers before the watch's task has run (this runtime has one thread), then is
    // interrupted.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(answer("after", 321).as_bytes()).unwrap();
    // The wait's output, as the model received it (after the interrupt): moon's message.
    file.write_all(
            format!("{{\"type\":\"user\",\"timestamp\":\"2026-11-26T01:00:02Z\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"[MSG id:{} from:moon] the API changed\"}}]}}}}\n", from_moon.id).as_bytes(),
        )
        .unwrap();
    file.write_all(
            b"{\"type\":\"user\",\"timestamp\":\"2026-11-26T01:00:01Z\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"[Request interrupted by user]\"}]}}\n",
        )
        .unwrap();
    let (mut usage, mut seen) = (None, None);
    let told = async {
        while usage.is_none() || seen.is_none() {
            let event = events.recv().await.unwrap();
            if let crate::ui_event::UiEvent::Usage { usage: u } = event {
                usage = Some(u);
            } else if let crate::ui_event::UiEvent::Seen { session_id, ids } = event {
                seen = Some((session_id, ids));
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), told)
        .await
        .expect(
            "the answer written after the hook was never counted, or moon's message never seen",
        );
    let usage = usage.unwrap();
    assert_eq!(usage.sample.tokens.output, 321, "{usage:?}");
    assert_eq!(seen, Some(("sky".to_owned(), vec![from_moon.id.clone()])));
    let passed = store.passed(&from_moon.id).await.unwrap().unwrap();
    assert_eq!(passed.delivery, clawmux_core::between::Delivery::Seen);
    let entry = tokio::time::timeout(std::time::Duration::from_secs(10), found.recv())
        .await
        .expect("the interrupt was never found")
        .unwrap();
    let crate::found::ForHub::Found(entry) = entry else {
        panic!("not an entry: {entry:?}");
    };
    assert_eq!(entry.agent, "sky");
    assert_eq!(entry.source, Source::Transcript);
    assert_eq!(entry.event, Event::Transcript(Entry::Interrupted));
}

#[test]
fn only_changes_of_the_transcript_itself_wake_the_reader() {
    use notify::event::{
        AccessKind, AccessMode, CreateKind, DataChange, EventKind, MetadataKind, ModifyKind,
        RemoveKind, RenameMode,
    };
    let transcript = Path::new("/p/-w/s1.jsonl");
    let on = |kind: EventKind, path: &str| {
        may_have_grown(
            &notify::Event::new(kind).add_path(PathBuf::from(path)),
            transcript,
        )
    };
    let written = EventKind::Modify(ModifyKind::Data(DataChange::Any));
    assert!(on(written, "/p/-w/s1.jsonl"));
    assert!(on(EventKind::Create(CreateKind::File), "/p/-w/s1.jsonl"));
    assert!(on(EventKind::Remove(RemoveKind::File), "/p/-w/s1.jsonl"));
    assert!(on(
        EventKind::Modify(ModifyKind::Name(RenameMode::To)),
        "/p/-w/s1.jsonl"
    ));
    assert!(may_have_grown(
        &notify::Event::new(EventKind::Other),
        transcript
    ));
    // Our own open and close of the file, its metadata, and the folder's other files do not.
    assert!(!on(
        EventKind::Access(AccessKind::Open(AccessMode::Any)),
        "/p/-w/s1.jsonl"
    ));
    assert!(!on(
        EventKind::Access(AccessKind::Close(AccessMode::Read)),
        "/p/-w/s1.jsonl"
    ));
    assert!(!on(
        EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
        "/p/-w/s1.jsonl"
    ));
    assert!(!on(written, "/p/-w/s2.jsonl"));
}

#[test]
fn only_absolute_jsonl_paths_without_parent_steps() {
    assert!(acceptable(Path::new("/home/u/.claude/projects/-w/s.jsonl")));
    assert!(!acceptable(Path::new("relative/s.jsonl")));
    assert!(!acceptable(Path::new("/home/u/.ssh/id_ed25519")));
    assert!(!acceptable(Path::new("/home/u/.claude/../.ssh/x.jsonl")));
}

#[tokio::test]
async fn a_transcript_rewritten_in_place_is_read_again_and_counts_nothing_twice() {
    use std::io::Write;
    let f = crate::states::fixture::fixture().await;
    let mut events = f.events.resubscribe();
    let (transcripts, _found) = transcripts(&f);
    let path = f.dir.path().join("sky.jsonl");
    let answer = |n: u64| {
        format!(
            "{{\"type\":\"assistant\",\"timestamp\":\"2026-11-26T01:00:0{n}Z\",\"message\":{{\"id\":\"a{n}\",\
             \"content\":[],\"usage\":{{\"input_tokens\":1,\"output_tokens\":{}}}}}}}\n",
            n * 100
        )
    };
    // A long line of progress, which Claude Code's clean-up later trims away.
    let progress = format!(
        "{{\"type\":\"progress\",\"timestamp\":\"2026-11-26T01:00:00Z\",\"data\":\"{}\"}}\n",
        "x".repeat(300)
    );
    std::fs::write(&path, "").unwrap();
    transcripts.follow("sky", &naming(&path));
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all(format!("{progress}{}{}", answer(1), answer(2)).as_bytes())
        .unwrap();
    let mut counted = Vec::new();
    // The figures are the agent's totals.
    counted_until(&mut events, 300, &mut counted).await;
    assert_eq!(counted, [100, 300]);
    // Rewritten in place: the progress trimmed, the answers kept, three new ones after them.
    let mut rewritten = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    rewritten
        .write_all((1..=5).map(answer).collect::<String>().as_bytes())
        .unwrap();
    drop(rewritten);
    counted_until(&mut events, 1500, &mut counted).await;
    assert_eq!(
        counted,
        [100, 300, 600, 1000, 1500],
        "each answer once, none missed"
    );
}

/// Claude Code hands what it queued (a background task's end) over only when a tool call ends: a queued
/// notice in the transcript ends the agent's wait with a line saying what, and without a wait it does nothing.
/// A transcript whose folder comes after the hook that named it is followed once it is there.
#[tokio::test]
async fn what_claude_code_queued_ends_the_wait_saying_what() {
    use std::io::Write;
    let f = crate::states::fixture::fixture().await;
    let (transcripts, _found) = transcripts(&f);
    let queued = |what: &str| {
        format!("{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":\"2026-11-28T00:26:59Z\",\
                 \"content\":\"<task-notification>\\n<summary>{what}</summary>\\n</task-notification>\"}}\n")
    };
    // No wait: nothing to end, and nothing kept for a later one.
    transcripts.queued("sky", "earlier");
    let inbox = crate::inbox::Inbox::new(f.states.clone());
    let waiter = inbox.wait_open("sky").await.unwrap();
    // Named before Claude Code made its folder, and no hook after (the agent waits): followed all the same.
    let path = f.dir.path().join("later").join("sky.jsonl");
    transcripts.follow("sky", &naming(&path));
    tokio::task::yield_now().await;
    std::fs::create_dir(path.parent().unwrap()).unwrap();
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(queued("Background command done").as_bytes())
        .unwrap();
    let line = tokio::time::timeout(std::time::Duration::from_secs(10), waiter.notice())
        .await
        .expect("the wait was never ended");
    assert!(
        line.starts_with("[CLAWMUX] Claude Code has something for you: Background command done."),
        "{line}"
    );
    assert!(line.contains("run `clawmux wait` again"), "{line}");
    waiter.close().await.unwrap();
}

/// A command the model started in the background runs until its end is queued: the window is told how many
/// run at each change, the agent's row says so, and a line read again (a transcript rewritten) counts once.
#[tokio::test]
async fn work_in_the_background_is_told_from_its_start_to_its_end() {
    use std::io::Write;
    let f = crate::states::fixture::fixture().await;
    let mut events = f.events.resubscribe();
    let (transcripts, _found) = transcripts(&f);
    let path = f.dir.path().join("sky.jsonl");
    std::fs::File::create(&path).unwrap();
    transcripts.follow("sky", &naming(&path));
    let started = |id: &str, at: u32| {
        format!("{{\"type\":\"user\",\"timestamp\":\"2026-11-28T00:27:{at:02}Z\",\"message\":{{\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{id}\",\
                 \"content\":\"Command running in background with ID: {id}. Output is being written to: /tmp/{id}.output\"}}]}}}}\n")
    };
    let ended = |id: &str, at: u32| {
        format!("{{\"type\":\"queue-operation\",\"operation\":\"enqueue\",\"timestamp\":\"2026-11-28T00:27:{at:02}Z\",\
                 \"content\":\"<task-notification>\\n<task-id>{id}</task-id>\\n<status>completed</status>\\n</task-notification>\"}}\n")
    };
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    file.write_all((started("b1", 1) + &started("b2", 2)).as_bytes())
        .unwrap();
    assert_eq!(background_told(&mut events).await, 1);
    assert_eq!(background_told(&mut events).await, 2);
    assert_eq!(f.states.live("sky").unwrap().background.count(), 2);
    file.write_all(ended("b1", 3).as_bytes()).unwrap();
    assert_eq!(background_told(&mut events).await, 1);
    // Rewritten in place with what it held and the last task's end: only the end is new.
    let whole = started("b1", 1) + &started("b2", 2) + &ended("b1", 3) + &ended("b2", 4);
    std::fs::write(&path, whole).unwrap();
    assert_eq!(background_told(&mut events).await, 0);
    assert_eq!(f.states.live("sky").unwrap().background.count(), 0);
}

/// The number of sky's tasks in the background the window is told of next.
async fn background_told(
    events: &mut tokio::sync::broadcast::Receiver<crate::ui_event::UiEvent>,
) -> u32 {
    let next = async {
        loop {
            if let crate::ui_event::UiEvent::Background {
                session_id,
                running,
            } = events.recv().await.unwrap()
            {
                assert_eq!(session_id, "sky");
                return running;
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), next)
        .await
        .expect("the window was never told")
}

/// The agent's output totals the window is told of, until `last`.
async fn counted_until(
    events: &mut tokio::sync::broadcast::Receiver<crate::ui_event::UiEvent>,
    last: u64,
    counted: &mut Vec<u64>,
) {
    let told = async {
        loop {
            if let crate::ui_event::UiEvent::Usage { usage } = events.recv().await.unwrap() {
                counted.push(usage.sample.tokens.output);
                if usage.sample.tokens.output == last {
                    return;
                }
            }
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), told)
        .await
        .unwrap_or_else(|_| panic!("the answers were never counted: {counted:?}"));
}

/// The transcripts feature over a states fixture, with no reorder window, and what it finds.
fn transcripts(
    f: &crate::states::fixture::Fixture,
) -> (
    Transcripts,
    tokio::sync::mpsc::UnboundedReceiver<crate::found::ForHub>,
) {
    let (finds, found) = Finds::channel();
    let transcripts = Transcripts::new(
        f.states.clone(),
        f.usage.clone(),
        Between::for_tests(f, crate::between::Rules::default()),
        finds,
        std::time::Duration::ZERO,
        crate::tasks::Tasks::default(),
    );
    (transcripts, found)
}

/// A hook that names the transcript at `path`, as Claude Code's hooks name it.
fn naming(path: &std::path::Path) -> Event {
    let hook = clawmux_core::hook::parse_value(&serde_json::json!({
        "hook_event_name": "Notification", "message": "ready", "notification_type": "idle_prompt",
        "transcript_path": path,
    }))
    .unwrap();
    Event::Hook(hook)
}
