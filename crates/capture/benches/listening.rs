//! What hands-free listening costs in the desktop app while nobody speaks: the app's listener
//! (`clawmux_capture::listen`, the sound server's default source through libpulse) on a PulseAudio server of the bench's own whose
//! default source plays a quiet room (white noise, paced in real time), for `SECONDS`; the CPU this process
//! spends on it (its listener's threads, from /proc) and the sound server's, against the same run with
//! nobody listening. Also how many utterances it sent: none is the goal.
//!
//! Run: `cargo bench -p clawmux-capture --bench listening` (SECONDS=20 by default; THREADS=1 also prints
//! each thread's CPU: the source's reader against the listener's own).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clawmux_capture::listen::{listen, Heard};
use clawmux_capture::Source;

#[path = "../tests/common/pulse.rs"]
mod pulse;

const RATE: u32 = 48_000;

fn ticks_per_second() -> f64 {
    let out = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

/// CPU seconds of `stat` (a /proc stat file): user + system.
fn cpu(stat: &Path) -> f64 {
    let text = std::fs::read_to_string(stat).unwrap_or_default();
    let fields: Vec<&str> = text
        .rsplit_once(") ")
        .map_or(vec![], |(_, rest)| rest.split(' ').collect());
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / ticks_per_second()
}

/// CPU seconds of this process's threads but the one named `skip` (the room's writer).
fn own_cpu(skip: &str) -> f64 {
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .flatten()
        .filter(|t| {
            std::fs::read_to_string(t.path().join("comm")).map_or(true, |c| c.trim() != skip)
        })
        .map(|t| cpu(&t.path().join("stat")))
        .sum()
}

/// Writes a quiet room into `fifo`, paced in real time, until `stop`.
fn room(fifo: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let fifo = fifo.to_owned();
    std::thread::Builder::new()
        .name("room".into())
        .spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            let mut seed = 7u32;
            let began = Instant::now();
            let chunk = RATE as usize / 50;
            for i in 0u64.. {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let bytes: Vec<u8> = (0..chunk)
                    .flat_map(|_| {
                        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                        (((seed >> 16) % 200) as i16 - 100).to_le_bytes()
                    })
                    .collect();
                if pipe.write_all(&bytes).is_err() {
                    return;
                }
                let due = began + Duration::from_millis(20 * (i + 1));
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
        })
        .unwrap()
}

fn main() {
    let seconds: u64 = std::env::var("SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("room.fifo");
    let (server, address) = pulse::start(dir.path(), &fifo, RATE);
    pulse::use_it(dir.path(), &address);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = room(&fifo, stop.clone());
    let server_stat = Path::new("/proc")
        .join(server.0.id().to_string())
        .join("stat");
    let window = Duration::from_secs(seconds);

    // Nobody listening: the sound server alone, reading the room.
    let (own, sound) = (own_cpu("room"), cpu(&server_stat));
    std::thread::sleep(window);
    let idle_own = own_cpu("room") - own;
    let idle_sound = cpu(&server_stat) - sound;

    // Listening.
    let utterances = Arc::new(AtomicUsize::new(0));
    let counted = utterances.clone();
    let listening = listen(&Source::Microphone, move |heard| {
        if matches!(heard, Heard::Start) {
            counted.fetch_add(1, Ordering::Relaxed);
        }
    })
    .expect("the room's source opens as the microphone");
    let (own, sound) = (own_cpu("room"), cpu(&server_stat));
    std::thread::sleep(window);
    let listen_own = own_cpu("room") - own;
    let listen_sound = cpu(&server_stat) - sound;
    if std::env::var_os("THREADS").is_some() {
        for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            let name = std::fs::read_to_string(t.path().join("comm")).unwrap_or_default();
            println!(
                "  thread {}: {:.2} s",
                name.trim(),
                cpu(&t.path().join("stat"))
            );
        }
    }
    drop(listening);
    stop.store(true, Ordering::Relaxed);
    drop(writer);

    let share = |cpu: f64| 100.0 * cpu / window.as_secs_f64();
    println!(
        "hands-free in the app, listening to a quiet room for {seconds} s (PulseAudio, {RATE} Hz): \
         the listener {:.2} % of a core (nobody listening: {:.2} %); the sound server {:.2} % \
         (nobody listening: {:.2} %); together +{:.2} %; utterances started: {}",
        share(listen_own),
        share(idle_own),
        share(listen_sound),
        share(idle_sound),
        share(listen_own - idle_own + listen_sound - idle_sound),
        utterances.load(Ordering::Relaxed)
    );
}
