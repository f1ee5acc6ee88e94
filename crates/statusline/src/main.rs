//! `clawmux-statusline [--then COMMAND] [--observe [--data-dir DIR]]`: see the library's documentation.

use std::process::ExitCode;

fn main() -> ExitCode {
    match clawmux_statusline::Args::parse(std::env::args_os().skip(1)) {
        Ok(args) => clawmux_statusline::run(&args),
        Err(why) => {
            eprintln!("clawmux-statusline: {why}");
            ExitCode::from(2)
        }
    }
}
