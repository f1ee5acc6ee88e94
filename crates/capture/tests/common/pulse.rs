//! A PulseAudio server of a test's own (its folder as home and runtime dir, never the user's) whose
//! default source plays what is written into a FIFO (s16le mono), and this process's ALSA pointed at it.
//! Shared by the microphone test and the listening benchmark (`#[path]`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The server; killed when dropped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the server in `dir` with the default source reading `fifo` at `rate`; returns it and its
/// address.
pub fn start(dir: &Path, fifo: &Path, rate: u32) -> (Server, String) {
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
            "module-pipe-source source_name=fifo file={} format=s16le rate={rate} channels=1",
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
    let end = Instant::now() + Duration::from_secs(10);
    while !(socket.exists() && fifo.exists()) {
        assert!(Instant::now() < end, "timed out: the PulseAudio socket");
        std::thread::sleep(Duration::from_millis(20));
    }
    let address = format!("unix:{}", socket.display());
    let set = Command::new("pactl")
        .args(["-s", &address, "set-default-source", "fifo"])
        .env("HOME", dir)
        .status()
        .unwrap();
    assert!(set.success());
    (server, address)
}

/// Points this process's ALSA at the server at `address`, whatever the machine's own configuration says (a
/// desktop with PipeWire would otherwise record its real microphone); its home is `dir`.
pub fn use_it(dir: &Path, address: &str) {
    let alsa = dir.join("asound.conf");
    std::fs::write(
        &alsa,
        "pcm.!default { type pulse }\nctl.!default { type pulse }\n",
    )
    .unwrap();
    std::env::set_var("ALSA_CONFIG_PATH", &alsa);
    std::env::set_var("PULSE_SERVER", address);
    std::env::set_var("HOME", dir);
    std::env::set_var("XDG_RUNTIME_DIR", dir.join("run"));
}
