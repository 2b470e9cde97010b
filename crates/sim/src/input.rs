//! Opening an input file a scenario names (a trace, a position trace) safely: a FIFO or a
//! device is refused before it is opened (reading one blocks forever or never ends), a file
//! over a size limit is refused before it is read, and the file is opened non-blocking and
//! checked again, so one swapped in meanwhile is refused too (issue 22).

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
}
