//! The microphone: the sound server's default source where one answers ([`crate::pulse`]), else the
//! system's default input device through cpal (ALSA on Linux), in its default configuration; every sample
//! format a device may offer is mixed down onto the tape as it arrives.

use std::sync::mpsc::{Receiver, Sender};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{ErrorKind, FromSample, SampleFormat, SizedSample, StreamConfig};

use crate::tape::Tape;
use crate::CaptureError;

/// The source's thread: opens the device, says whether it records, and keeps the stream until told to stop.
pub fn run(ready: &Sender<Result<Tape, CaptureError>>, stopped: &Receiver<()>) {
    if crate::pulse::run(ready, stopped) {
        return;
    }
    match open() {
        Ok((stream, tape)) => {
            if ready.send(Ok(tape)).is_ok() {
                // Until the recording drops its end of the channel.
                let _ = stopped.recv();
            }
            drop(stream);
        }
        Err(e) => {
            let _ = ready.send(Err(e));
        }
    }
}

fn device_error(e: cpal::Error) -> CaptureError {
    #[allow(clippy::wildcard_enum_match_arm)]
    // cpal's list is open-ended; the rest say what they are
    match e.kind() {
        ErrorKind::DeviceNotAvailable => CaptureError::NoMicrophone,
        ErrorKind::PermissionDenied => {
            CaptureError::Device("this program may not use it (permission denied)".into())
        }
        _ => CaptureError::Device(e.to_string()),
    }
}

// cpal's list of formats is open-ended (24-bit, 64-bit, DSD, ...): the rest are refused by name.
#[allow(clippy::wildcard_enum_match_arm)]
fn open() -> Result<(cpal::Stream, Tape), CaptureError> {
    let device = cpal::default_host()
        .default_input_device()
        .ok_or(CaptureError::NoMicrophone)?;
    let supported = device.default_input_config().map_err(device_error)?;
    let channels = usize::from(supported.channels());
    let tape = Tape::new(supported.sample_rate());
    let format = supported.sample_format();
    let config: StreamConfig = supported.into();
    let stream = match format {
        SampleFormat::I8 => build::<i8>(&device, &config, &tape, channels),
        SampleFormat::I16 => build::<i16>(&device, &config, &tape, channels),
        SampleFormat::I32 => build::<i32>(&device, &config, &tape, channels),
        SampleFormat::U8 => build::<u8>(&device, &config, &tape, channels),
        SampleFormat::U16 => build::<u16>(&device, &config, &tape, channels),
        SampleFormat::F32 => build::<f32>(&device, &config, &tape, channels),
        SampleFormat::F64 => build::<f64>(&device, &config, &tape, channels),
        #[allow(clippy::wildcard_enum_match_arm)]
        // cpal's list is open-ended (24-bit, 64-bit, DSD, ...)
        other => {
            return Err(CaptureError::Device(format!(
                "its sample format {other} is not supported"
            )))
        }
    }
    .map_err(device_error)?;
    stream.play().map_err(device_error)?;
    Ok((stream, tape))
}

fn build<T>(
    device: &cpal::Device,
    config: &StreamConfig,
    tape: &Tape,
    channels: usize,
) -> Result<cpal::Stream, cpal::Error>
where
    T: SizedSample,
    i16: FromSample<T>,
{
    let recording = tape.clone();
    let failing = tape.clone();
    device.build_input_stream(
        *config,
        move |data: &[T], _: &cpal::InputCallbackInfo| recording.record(data, channels),
        move |e: cpal::Error| {
            // An overrun loses a few milliseconds; the recording goes on. Anything else ends the sound.
            tracing::warn!(error = %e, "microphone stream");
            if !matches!(e.kind(), ErrorKind::Xrun) {
                failing.fail(e.to_string());
            }
        },
        None,
    )
}
