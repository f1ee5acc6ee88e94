//! The real microphone path (cpal -> ALSA -> PulseAudio), fed real speech: a PulseAudio server of the
//! test's own (its folder as home and runtime dir, never the user's) with a virtual source reading a FIFO,
//! made the default; espeak-ng's speech is written into the FIFO while the recording runs.
//!
//! One test in its own binary: it points this process's PulseAudio client at the test's server through the
//! environment.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clawmux_capture::{start, Source};

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn until(what: &str, mut ok: impl FnMut() -> bool) {
    let end = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < end, "timed out: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A PulseAudio server whose default source plays what is written into `fifo` (s16le mono at `rate`).
fn pulseaudio(dir: &Path, fifo: &Path, rate: u32) -> (Server, String) {
    let runtime = dir.join("run");
    std::fs::create_dir_all(&runtime).unwrap();
    let socket = runtime.join("native");
    let child = Command::new("pulseaudio")
        .args([
            "-n",
            "--daemonize=no",
            "--exit-idle-time=-1",
            "--use-pid-file=no",
        ])
        .args(["--disable-shm=yes", "--log-target=stderr"])
        .arg("-L")
        .arg(format!(
            "module-native-protocol-unix auth-anonymous=1 socket={}",
            socket.display()
        ))
        .arg("-L")
        .arg(format!(
            "module-pipe-source source_name=speech file={} format=s16le rate={rate} channels=1",
            fifo.display()
        ))
        .arg("-L")
        .arg("module-null-sink")
        .env("HOME", dir)
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("pulseaudio runs (scripts/setup installs it)");
    let server = Server(child);
    until("the PulseAudio socket", || socket.exists() && fifo.exists());
    let address = format!("unix:{}", socket.display());
    let set = Command::new("pactl")
        .args(["-s", &address, "set-default-source", "speech"])
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(set.success());
    (server, address)
}

fn speech(dir: &Path) -> (PathBuf, u32, Vec<i16>) {
    let path = dir.join("speech.wav");
    let text = "Open the pull request and ask for a review";
    let status = Command::new("espeak-ng")
        .arg("-w")
        .arg(&path)
        .arg(text)
        .status()
        .unwrap();
    assert!(status.success());
    let mut reader = hound::WavReader::open(&path).unwrap();
    let rate = reader.spec().sample_rate;
    (
        path.clone(),
        rate,
        reader.samples::<i16>().map(Result::unwrap).collect(),
    )
}

fn rms(samples: &[i16]) -> f64 {
    let sum: f64 = samples.iter().map(|&s| f64::from(s) * f64::from(s)).sum();
    (sum / samples.len().max(1) as f64).sqrt()
}

#[test]
fn speech_on_the_default_source_is_recorded_through_the_microphone_path() {
    let dir = tempfile::tempdir().unwrap();
    let (_, rate, spoken) = speech(dir.path());
    let fifo = dir.path().join("speech.fifo");
    let (_server, address) = pulseaudio(dir.path(), &fifo, rate);
    // This process's ALSA goes to PulseAudio whatever the machine's own configuration says (a desktop
    // with PipeWire would otherwise record its real microphone), and finds the test's server; its home is
    // the test's.
    let alsa = dir.path().join("asound.conf");
    std::fs::write(
        &alsa,
        "pcm.!default { type pulse }\nctl.!default { type pulse }\n",
    )
    .unwrap();
    std::env::set_var("ALSA_CONFIG_PATH", &alsa);
    std::env::set_var("PULSE_SERVER", &address);
    std::env::set_var("HOME", dir.path());
    std::env::set_var("XDG_RUNTIME_DIR", dir.path().join("run"));

    let opening = Instant::now();
    let recording = start(&Source::Microphone).expect("the virtual source opens as the microphone");
    let opened = opening.elapsed();
    // The speech, paced as a microphone would deliver it, then half a second of silence.
    let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let began = Instant::now();
    let chunk = rate as usize / 50;
    let silence = vec![0i16; rate as usize / 2];
    for (i, part) in spoken
        .chunks(chunk)
        .chain(silence.chunks(chunk))
        .enumerate()
    {
        let bytes: Vec<u8> = part.iter().flat_map(|s| s.to_le_bytes()).collect();
        pipe.write_all(&bytes).unwrap();
        let due = began + Duration::from_millis(20 * (i as u64 + 1));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    let clip = recording.finish().expect("a recording");

    let mut reader = hound::WavReader::new(&clip.wav[..]).unwrap();
    let spec = reader.spec();
    let heard: Vec<i16> = reader.samples::<i16>().map(Result::unwrap).collect();
    assert_eq!((spec.channels, spec.bits_per_sample), (1, 16));
    let spoken_ms = spoken.len() as u64 * 1000 / u64::from(rate);
    assert!(
        clip.millis + 200 >= spoken_ms,
        "{} ms recorded for {spoken_ms} ms of speech",
        clip.millis
    );
    // The speech is there at its loudness (the server may resample it, so no sample-for-sample match).
    let loud = rms(&heard);
    let expected =
        rms(&spoken) * (spoken.len() as f64 / (spoken.len() + silence.len()) as f64).sqrt();
    assert!(
        loud > expected * 0.5 && loud < expected * 1.5,
        "rms {loud:.0}, expected about {expected:.0}"
    );
    println!(
        "microphone (cpal, ALSA -> PulseAudio virtual source): opened in {opened:?}; {spoken_ms} ms of speech -> {} ms at {} Hz, rms {loud:.0} (about {expected:.0} expected)",
        clip.millis, spec.sample_rate
    );
}
