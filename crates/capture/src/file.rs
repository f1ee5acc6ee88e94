//! A WAV file as the microphone: played in real time from the moment the recording starts, then silence,
//! so a recording is as long as it was held and starts with the file's sound, sample for sample.

use std::path::Path;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use cpal::Sample;

use crate::tape::Tape;
use crate::CaptureError;

/// How often the file's next samples are handed over, as a sound card would.
const PERIOD: Duration = Duration::from_millis(20);

/// The file's sound: interleaved 16-bit frames (the tape mixes them down as a device's would be).
struct Sound {
    rate: u32,
    channels: usize,
    samples: Vec<i16>,
}

fn load(path: &Path) -> Result<Sound, String> {
    let mut reader = hound::WavReader::open(path).map_err(|e| e.to_string())?;
    let spec = reader.spec();
    let channels = usize::from(spec.channels.max(1));
    if spec.sample_rate == 0 {
        return Err("its sample rate is 0".into());
    }
    let samples: Vec<i16> = match (spec.sample_format, spec.bits_per_sample) {
        (hound::SampleFormat::Int, 16) => reader.samples::<i16>().collect::<Result<_, _>>(),
        (hound::SampleFormat::Int, bits @ 1..=32) => reader
            .samples::<i32>()
            .map(|s| s.map(|s| scale_int(s, bits)))
            .collect::<Result<_, _>>(),
        (hound::SampleFormat::Float, 32) => reader
            .samples::<f32>()
            .map(|s| s.map(i16::from_sample))
            .collect::<Result<_, _>>(),
        (format, bits) => return Err(format!("{bits}-bit {format:?} samples are not supported")),
    }
    .map_err(|e| e.to_string())?;
    Ok(Sound {
        rate: spec.sample_rate,
        channels,
        samples,
    })
}

/// An integer sample of `bits` bits as a 16-bit one.
fn scale_int(sample: i32, bits: u16) -> i16 {
    let shifted = if bits >= 16 {
        sample >> (bits - 16)
    } else {
        sample << (16 - bits)
    };
    i16::try_from(shifted).unwrap_or(if shifted < 0 { i16::MIN } else { i16::MAX })
}

/// The source's thread: says whether the file plays, then plays it until told to stop.
pub fn run(path: &Path, ready: &Sender<Result<Tape, CaptureError>>, stopped: &Receiver<()>) {
    let sound = match load(path) {
        Ok(sound) => sound,
        Err(why) => {
            let _ = ready.send(Err(CaptureError::File {
                path: path.display().to_string(),
                why,
            }));
            return;
        }
    };
    let tape = Tape::new(sound.rate);
    // The sound starts when the recording is said to run, so it lasts at least as long as it is held
    // (this thread may be scheduled late after the send).
    let began = Instant::now();
    if ready.send(Ok(tape.clone())).is_err() {
        return;
    }
    let frames = sound.samples.len() / sound.channels;
    let mut played = 0usize; // frames
    let silence = vec![0i16; sound.rate as usize / 10 + 1];
    loop {
        let stop = !matches!(stopped.recv_timeout(PERIOD), Err(RecvTimeoutError::Timeout));
        let due = (began.elapsed().as_secs_f64() * f64::from(sound.rate)) as usize;
        while played < due {
            let end = due.min(played + silence.len());
            if played < frames {
                let end = end.min(frames);
                let from_file = &sound.samples[played * sound.channels..end * sound.channels];
                tape.record(from_file, sound.channels);
                played = end;
            } else {
                tape.record(&silence[..end - played], 1);
                played = end;
            }
        }
        if stop {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::scale_int;

    #[test]
    fn integer_samples_of_any_width_become_16_bit() {
        assert_eq!(scale_int(127, 8), 127 << 8);
        assert_eq!(scale_int(-8_388_608, 24), i16::MIN);
        assert_eq!(scale_int(i32::MAX, 32), i16::MAX);
        assert_eq!(scale_int(-5, 16), -5);
    }
}
