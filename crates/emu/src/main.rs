//! `cellshare-emu`: the real-time cell emulator and its traffic tool. See the crate docs of
//! `cellshare_emu` and `docs/emulator.md`; the command line is `cellshare_emu::cli`.

use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(cellshare_emu::cli::main_with_args(std::env::args_os()))
}
