//! The Mahimahi traces that ship with cellshare, compiled into the library.
//!
//! A scenario names one as `file = "builtin:TMobile-LTE-driving.down"`. The files live in
//! `python/cellshare/data/traces/` (package data of the wheel, with a README of their
//! provenance: recorded by Winstein, Sivaraman and Balakrishnan with their Saturator tool for
//! [sprout] and distributed with [mahimahi]); they are embedded here with `include_bytes!`
//! so that every reader of a scenario — the simulator, the Python binding, the real-time
//! emulator's own binary — resolves a builtin name the same way, from any folder and any
//! installation, without a path or an environment variable. The bytes are the files' own:
//! the embedding is rebuilt whenever a file changes.

/// The prefix that names a shipped trace in a scenario's `file` key.
pub const PREFIX: &str = "builtin:";

macro_rules! traces {
    ($($name:literal),* $(,)?) => {
        /// Every shipped trace, by file name, with its bytes.
        pub const TRACES: &[(&str, &[u8])] = &[
            $(($name, include_bytes!(concat!("../../../python/cellshare/data/traces/", $name)))),*
        ];
    };
}

traces!(
    "ATT-LTE-driving.down",
    "ATT-LTE-driving.up",
    "TMobile-LTE-driving.down",
    "TMobile-UMTS-driving.down",
    "TMobile-UMTS-driving.up",
    "Verizon-EVDO-driving.down",
    "Verizon-EVDO-driving.up",
    "NYC-LTE-times-square.down",
    "NYC-LTE-subway.down",
);

/// The shipped trace's name when `file` names one (`"builtin:NAME"`), else `None`.
pub fn builtin_name(file: &str) -> Option<&str> {
    file.strip_prefix(PREFIX)
}

/// The bytes of the shipped trace `name` (a file name such as `"ATT-LTE-driving.down"`).
pub fn bytes(name: &str) -> Option<&'static [u8]> {
    TRACES.iter().find(|(n, _)| *n == name).map(|&(_, b)| b)
}

/// The names of the shipped traces, in order.
pub fn names() -> impl Iterator<Item = &'static str> {
    TRACES.iter().map(|&(n, _)| n)
}

/// What a scenario may write for a shipped trace, for an error message:
/// `"builtin:ATT-LTE-driving.down", ...`.
pub fn expected() -> String {
    let names: Vec<String> = names().map(|n| format!("{PREFIX}{n}")).collect();
    format!("one of the shipped traces ({})", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MahimahiTrace;

    #[test]
    fn every_shipped_trace_parses_and_is_found_by_its_name() {
        assert_eq!(TRACES.len(), 9);
        for name in names() {
            let b = bytes(name).unwrap();
            let t = MahimahiTrace::parse_reader(b).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(t.period_ms() > 60_000, "{name}: {} ms", t.period_ms());
        }
        assert_eq!(builtin_name("builtin:ATT-LTE-driving.down"), Some("ATT-LTE-driving.down"));
        assert_eq!(builtin_name("ATT-LTE-driving.down"), None);
        assert!(bytes("no-such.down").is_none());
        assert!(expected().contains("builtin:Verizon-EVDO-driving.up"));
    }
}
