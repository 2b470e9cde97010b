//! Reading the input files a scenario names — its Mahimahi traces and its position traces —
//! for every front end (the simulator's binding, the emulator, the examples): one place
//! resolves names (shipped traces as `"builtin:NAME"`, files relative to the scenario's
//! folder unless absolute), opens files safely and words the errors.
//!
//! Opening is safe: a FIFO or a device is refused before it is opened (reading one blocks
//! forever or never ends), a file over the parser's size limit is refused before it is read,
//! and the file is opened non-blocking and checked again, so one swapped in meanwhile is
//! refused too. An error is one line naming the key, the value (the path) and what was
//! expected; it never quotes the file's content.

use std::fs::{File, FileType, OpenOptions};
use std::io;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why an input file was refused.
#[derive(Debug)]
pub enum OpenError {
    /// It could not be read (missing, no permission, ...).
    Io(io::Error),
    /// It is not a regular file.
    NotRegular(FileType),
    /// It is larger than the limit.
    TooLarge {
        /// Its size, bytes.
        len: u64,
        /// The limit, bytes.
        max: u64,
    },
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "{e}"),
            OpenError::NotRegular(t) => write!(f, "{} (expected a regular file)", file_kind(*t)),
            OpenError::TooLarge { len, max } => write!(f, "{len} bytes (expected at most {max} bytes)"),
        }
    }
}

/// What kind of file a file type is, for an error message.
pub fn file_kind(t: FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Reads and parses a Mahimahi trace file (refused unless a regular file within the parser's
/// size limit).
pub fn read_trace(path: &Path) -> Result<cellshare_channel::MahimahiTrace, String> {
    let f = open_regular(path, cellshare_channel::trace::MAX_TRACE_BYTES).map_err(|e| e.to_string())?;
    let len = f.metadata().map_or(0, |m| m.len());
    cellshare_channel::MahimahiTrace::parse_reader(std::io::BufReader::new(f))
        .map_err(|e| format!("a valid Mahimahi trace: {e} (in a file of {len} bytes)"))
}

/// Reads the trace a scenario's `file` key names: a shipped trace (`"builtin:NAME"`,
/// [`cellshare_channel::builtin`]) or a file, relative to `base_dir` unless absolute. The
/// error is (the value as shown, what was expected), for a [`crate::ScenarioError`]; it never
/// quotes the file's content.
pub fn read_named_trace(file: &str, base_dir: &Path) -> Result<cellshare_channel::MahimahiTrace, (String, String)> {
    use cellshare_channel::builtin;
    if let Some(name) = builtin::builtin_name(file) {
        let bytes = builtin::bytes(name).ok_or_else(|| (format!("{file:?}"), builtin::expected()))?;
        return cellshare_channel::MahimahiTrace::parse_reader(bytes)
            .map_err(|e| (format!("{file:?}"), format!("a valid Mahimahi trace: {e}")));
    }
    let path = base_dir.join(file);
    read_trace(&path).map_err(|e| {
        let expected = if e.starts_with("a valid") { e } else { format!("a readable Mahimahi trace file ({e})") };
        (format!("{:?}", path.display().to_string()), expected)
    })
}

/// Reads every trace file the scenario names (shipped traces by name, files relative to
/// `base_dir`) into a [`crate::TraceSet`]; a file that cannot be read or parsed is an error
/// naming its key.
pub fn load_traces(sc: &crate::Scenario, base_dir: &Path) -> Result<crate::TraceSet, crate::ScenarioError> {
    let mut set = crate::TraceSet::new();
    for (key, file) in sc.trace_files() {
        if set.contains_key(&file) {
            continue;
        }
        let trace = read_named_trace(&file, base_dir).map_err(|(shown, expected)| crate::ScenarioError::new(&key, shown, expected))?;
        set.insert(file, std::sync::Arc::new(trace));
    }
    Ok(set)
}

/// Reads and parses a position trace file (refused unless a regular file within the parser's
/// size limit). A parse error names the line, what was expected and the file's size, never
/// what the file holds.
pub fn read_position_trace(path: &Path) -> Result<cellshare_ran::PositionTrace, String> {
    let f = open_regular(path, cellshare_ran::mobility::MAX_TRACE_BYTES).map_err(|e| e.to_string())?;
    let text = std::io::read_to_string(f).map_err(|e| e.to_string())?;
    cellshare_ran::PositionTrace::parse(&text).map_err(|e| format!("a valid position trace: {e} (in a file of {} bytes)", text.len()))
}

/// Reads the position trace a scenario's `ues[i].mobility.file` key names, relative to
/// `base_dir` unless absolute. The error is (the path as shown, what was expected), as
/// [`read_named_trace`]'s.
pub fn read_named_position_trace(file: &str, base_dir: &Path) -> Result<cellshare_ran::PositionTrace, (String, String)> {
    let path = base_dir.join(file);
    read_position_trace(&path).map_err(|e| {
        let expected = if e.starts_with("a valid") { e } else { format!("a readable position trace file ({e})") };
        (format!("{:?}", path.display().to_string()), expected)
    })
}

/// Reads every position trace file the scenario names (`ues[i].mobility = { kind = "trace" }`,
/// relative to `base_dir`) into [`crate::PositionTraces`]; a file that cannot be read or
/// parsed is an error naming its key.
pub fn load_positions(sc: &crate::Scenario, base_dir: &Path) -> Result<crate::PositionTraces, crate::ScenarioError> {
    let mut set = crate::PositionTraces::new();
    for (key, file) in sc.position_files() {
        if set.contains_key(&file) {
            continue;
        }
        let trace = read_named_position_trace(&file, base_dir).map_err(|(shown, expected)| crate::ScenarioError::new(&key, shown, expected))?;
        set.insert(file, std::sync::Arc::new(trace));
    }
    Ok(set)
}

/// Reads all the inputs a scenario names: its traces ([`load_traces`]), then its position
/// traces ([`load_positions`]). What the simulator's binding and the emulator call before
/// building a run.
pub fn load_inputs(sc: &crate::Scenario, base_dir: &Path) -> Result<(crate::TraceSet, crate::PositionTraces), crate::ScenarioError> {
    let traces = load_traces(sc, base_dir)?;
    let positions = load_positions(sc, base_dir)?;
    Ok((traces, positions))
}

/// Opens `path` for reading if it is a regular file of at most `max_bytes` bytes.
pub fn open_regular(path: &Path, max_bytes: u64) -> Result<File, OpenError> {
    let m = std::fs::metadata(path).map_err(OpenError::Io)?;
    if !m.is_file() {
        return Err(OpenError::NotRegular(m.file_type()));
    }
    if m.len() > max_bytes {
        return Err(OpenError::TooLarge { len: m.len(), max: max_bytes });
    }
    let f = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(OpenError::Io)?;
    let m = f.metadata().map_err(OpenError::Io)?;
    if !m.is_file() {
        return Err(OpenError::NotRegular(m.file_type()));
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_fifo_a_folder_a_large_file_and_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("cellshare-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // Refused before it is opened: this would block forever otherwise.
        assert!(matches!(open_regular(&fifo, 100), Err(OpenError::NotRegular(t)) if file_kind(t) == "a FIFO"));
        assert_eq!(open_regular(&dir, 100).unwrap_err().to_string(), "a directory (expected a regular file)");
        let file = dir.join("f");
        std::fs::write(&file, b"12345").unwrap();
        assert!(open_regular(&file, 5).is_ok());
        assert_eq!(open_regular(&file, 4).unwrap_err().to_string(), "5 bytes (expected at most 4 bytes)");
        assert!(matches!(open_regular(&dir.join("none"), 5), Err(OpenError::Io(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    const MOBILE: &str = r#"[simulation]
duration_s = 1
[network]
layout = { kind = "positions", sites_m = [[0.0, 0.0], [1000.0, 0.0]] }
[[ues]]
channel = { kind = "radio" }
mobility = { kind = "trace", file = "walk.txt" }
[[flows]]
ue = 0
transport = { kind = "tcp" }
"#;

    const TRACE: &str = r#"[simulation]
duration_s = 1
[[ues]]
channel = { kind = "trace", file = "builtin:TMobile-LTE-driving.down" }
[[flows]]
ue = 0
transport = { kind = "tcp" }
"#;

    #[test]
    fn loads_traces_and_position_traces_relative_to_the_scenario() {
        let dir = std::env::temp_dir().join(format!("cellshare-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("walk.txt"), "0 0 50\n10 100 50\n").unwrap();
        let mobile = crate::Scenario::from_toml_str(MOBILE).unwrap();
        let (traces, positions) = load_inputs(&mobile, &dir).unwrap();
        assert!(traces.is_empty());
        assert_eq!(positions.keys().collect::<Vec<_>>(), ["walk.txt"]);
        let trace = crate::Scenario::from_toml_str(TRACE).unwrap();
        let (traces, positions) = load_inputs(&trace, &dir).unwrap();
        assert_eq!(traces.keys().collect::<Vec<_>>(), ["builtin:TMobile-LTE-driving.down"]);
        assert!(positions.is_empty());

        // A missing file: one line naming the key, the path and what was expected.
        std::fs::remove_file(dir.join("walk.txt")).unwrap();
        let e = load_inputs(&mobile, &dir).unwrap_err().to_string();
        let shown = format!("{:?}", dir.join("walk.txt").display().to_string());
        assert!(e.starts_with(&format!("`ues[0].mobility.file`: got {shown}, expected a readable position trace file (")), "{e}");

        // A file that is not a position trace: the line and the size, never its content.
        std::fs::write(dir.join("walk.txt"), "0 0 50\nroot:x:0:0\n").unwrap();
        let e = load_inputs(&mobile, &dir).unwrap_err().to_string();
        assert!(e.contains("expected a valid position trace: line 2") && e.ends_with("(in a file of 18 bytes)"), "{e}");
        assert!(!e.contains("root:") && !e.contains('\n'), "{e}");

        // An unknown shipped trace names the key.
        let unknown = TRACE.replace("TMobile-LTE-driving.down", "nope");
        let e = load_inputs(&crate::Scenario::from_toml_str(&unknown).unwrap(), &dir).unwrap_err().to_string();
        assert!(e.starts_with("`ues[0].channel.file`: got \"builtin:nope\", expected "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
