//! Where a run's bulky tables live until Python asks for them: the fine-grained traces
//! (`flow_trace`, `mode_changes`, `ue_trace`) while the run goes, and the per-second series
//! (`flow_series`, `ue_series`) when it ends.
//!
//! Without this the traces of the 100-UE benchmark grew by about 1.7 GB per simulated hour:
//! they stayed in the simulation as vectors, went to Python as JSON text, became Python
//! floats and then Arrow columns. Now [`crate::Sim`] moves the samples out every
//! [`SPOOL_ROWS`] rows into a [`Spool`]: column chunks per flow or UE, appended to memory and,
//! once that holds [`MEM_MAX`] bytes, to an unnamed temporary file (`O_TMPFILE`: it has no
//! name to leave behind, even after `kill -9`). Python reads the tables back in Arrow
//! layout, a batch of rows at a time ([`Spool::batch`]), so writing Parquet never holds a
//! whole table either. Memory stays flat in simulated time; the file grows by about 62
//! bytes per flow and UE sample (≈ 220 MB per simulated hour of the benchmark).

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;

use cellshare_sim::results::{FlowTrace, ModeChanges, UeTrace};

use crate::contract::{self, Column, Ty};

/// Samples held in the simulation before they are moved to the spool.
pub const SPOOL_ROWS: usize = 1 << 16;
/// Bytes kept in memory before the spool moves to a temporary file.
pub const MEM_MAX: usize = 32 << 20;
/// Most bytes of string data in one batch (a batch stops early rather than exceed it).
const MAX_BATCH_STRING_BYTES: usize = 256 << 20;

/// A column every row of one owner (flow or UE) shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefix {
    /// The owner's index as u32.
    IdU32,
    /// The owner's index as i64.
    IdI64,
    /// The flow's name.
    Name,
    /// The flow's class (`foreground`, `background`).
    Class,
    /// The flow's category.
    Category,
}

/// Whose rows a table holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// One group of rows per flow.
    Flow,
    /// One group of rows per UE.
    Ue,
}

/// A spooled table: its owner, its shared columns, then its spooled columns (the contract's
/// columns of the table after the shared ones, [`crate::contract`]).
pub struct TableDef {
    /// The table's name (as `Result.TABLES`; `ue_place` is joined to `ue_trace`).
    pub name: &'static str,
    /// Flows or UEs.
    pub owner: Owner,
    /// Shared columns, first.
    pub prefix: &'static [Prefix],
    /// Spooled columns, after the prefix.
    pub cols: &'static [Column],
}

/// The tables, in a fixed order (their index is their id).
pub static TABLES: [TableDef; 6] = [
    TableDef { name: "flow_trace", owner: Owner::Flow, prefix: &[Prefix::IdU32, Prefix::Name], cols: contract::FLOW_TRACE_COLUMNS.split_at(2).1 },
    TableDef { name: "mode_changes", owner: Owner::Flow, prefix: &[Prefix::IdU32, Prefix::Name], cols: contract::MODE_CHANGES_COLUMNS.split_at(2).1 },
    // The queue samples; in a network, `ue_place` holds where each was taken.
    TableDef { name: "ue_trace", owner: Owner::Ue, prefix: &[Prefix::IdU32], cols: contract::UE_TRACE_COLUMNS.split_at(4).0.split_at(1).1 },
    TableDef {
        name: "flow_series",
        owner: Owner::Flow,
        prefix: &[Prefix::IdU32, Prefix::Name, Prefix::Class, Prefix::Category],
        cols: contract::FLOW_SERIES_COLUMNS.split_at(4).1,
    },
    TableDef { name: "ue_series", owner: Owner::Ue, prefix: &[Prefix::IdI64], cols: contract::UE_SERIES_COLUMNS.split_at(1).1 },
    // Where each `ue_trace` sample was taken, in a network only (row for row with `ue_trace`,
    // which the Python side extends with these columns).
    TableDef { name: "ue_place", owner: Owner::Ue, prefix: &[Prefix::IdU32], cols: contract::UE_PLACE_COLUMNS.split_at(1).1 },
];

impl Prefix {
    /// The Arrow type of the shared column (checked against the contract by the tests).
    #[cfg(test)]
    const fn ty(self) -> Ty {
        match self {
            Prefix::IdU32 => Ty::U32,
            Prefix::IdI64 => Ty::I64,
            Prefix::Name | Prefix::Class | Prefix::Category => Ty::Utf8,
        }
    }
}

/// Index of table `name` in [`TABLES`].
pub fn table_id(name: &str) -> Option<usize> {
    TABLES.iter().position(|t| t.name == name)
}

/// Bytes in memory, then in an unnamed temporary file.
enum Store {
    Mem(Vec<u8>),
    File { file: File, len: u64 },
}

/// An unnamed file in the temporary folder (`O_TMPFILE`), or, where the file system lacks
/// that, a named one removed at once.
fn unnamed_tmpfile() -> io::Result<File> {
    use std::os::fd::FromRawFd;
    let dir = std::env::temp_dir();
    let c = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: a valid NUL-terminated path; the descriptor is owned by the File below.
    let fd = unsafe { libc::open(c.as_ptr(), libc::O_TMPFILE | libc::O_RDWR | libc::O_CLOEXEC, 0o600) };
    if fd >= 0 {
        // SAFETY: `fd` was just opened and is ours.
        return Ok(unsafe { File::from_raw_fd(fd) });
    }
    let path = dir.join(format!("cellshare-spool-{}-{:x}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())));
    let f = std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path)?;
    std::fs::remove_file(&path)?;
    Ok(f)
}

impl Store {
    fn len(&self) -> u64 {
        match self {
            Store::Mem(v) => v.len() as u64,
            Store::File { len, .. } => *len,
        }
    }

    fn append(&mut self, bytes: &[u8]) -> io::Result<u64> {
        let off = self.len();
        if let Store::Mem(v) = self {
            if v.len() + bytes.len() <= MEM_MAX {
                v.extend_from_slice(bytes);
                return Ok(off);
            }
            let mut file = unnamed_tmpfile()?;
            file.write_all(v)?;
            *self = Store::File { file, len: off };
        }
        let Store::File { file, len } = self else { unreachable!("moved to a file above") };
        file.write_all_at(bytes, *len)?;
        *len += bytes.len() as u64;
        Ok(off)
    }

    fn read_into(&self, off: u64, n: usize, out: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Store::Mem(v) => out.extend_from_slice(&v[off as usize..off as usize + n]),
            Store::File { file, .. } => {
                let at = out.len();
                out.resize(at + n, 0);
                file.read_exact_at(&mut out[at..], off)?;
            }
        }
        Ok(())
    }
}

#[derive(Clone, Copy, Debug)]
struct Chunk {
    off: u64,
    rows: u64,
}

/// One owner's chunks of one table.
#[derive(Default)]
struct Rows {
    chunks: Vec<Chunk>,
    total: u64,
}

/// Names and classes of the flows, for the shared columns.
#[derive(Clone, Debug, Default)]
pub struct Owners {
    /// Flow names by index.
    pub names: Vec<String>,
    /// Flow classes by index.
    pub classes: Vec<&'static str>,
    /// Flow categories by index.
    pub categories: Vec<String>,
    /// Number of UEs.
    pub n_ues: usize,
}

/// One column of a batch in Arrow layout.
pub enum ArrowCol {
    /// A fixed-width or boolean column: validity bitmap (None: no nulls), null count, data.
    Fixed(Option<Vec<u8>>, usize, Vec<u8>),
    /// A UTF-8 column: i32 offsets, data.
    Utf8(Vec<u8>, Vec<u8>),
}

/// The spool of one run.
pub struct Spool {
    store: Store,
    /// Per table, per owner.
    rows: Vec<Vec<Rows>>,
    scratch: Vec<u8>,
}

fn put<const N: usize>(out: &mut Vec<u8>, it: impl Iterator<Item = [u8; N]>) {
    for b in it {
        out.extend_from_slice(&b);
    }
}

fn bitmap(bits: impl Iterator<Item = bool>, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n.div_ceil(8)];
    for (i, b) in bits.enumerate() {
        if b {
            v[i / 8] |= 1 << (i % 8);
        }
    }
    v
}

impl Spool {
    /// An empty spool.
    pub fn new() -> Spool {
        Spool { store: Store::Mem(Vec::new()), rows: TABLES.iter().map(|_| Vec::new()).collect(), scratch: Vec::new() }
    }

    /// Appends `rows` rows of table `t` for `owner`; `fill` writes the columns one after the
    /// other into the buffer it gets.
    fn append(&mut self, t: usize, owner: usize, rows: usize, fill: impl FnOnce(&mut Vec<u8>)) -> io::Result<()> {
        if rows == 0 {
            return Ok(());
        }
        let mut buf = std::mem::take(&mut self.scratch);
        buf.clear();
        fill(&mut buf);
        debug_assert_eq!(buf.len(), rows * TABLES[t].cols.iter().map(|c| c.ty.width()).sum::<usize>());
        let off = self.store.append(&buf)?;
        self.scratch = buf;
        let per = &mut self.rows[t];
        if per.len() <= owner {
            per.resize_with(owner + 1, Rows::default);
        }
        per[owner].chunks.push(Chunk { off, rows: rows as u64 });
        per[owner].total += rows as u64;
        Ok(())
    }

    /// Appends a flow's trace samples and mode changes.
    pub fn push_flow(&mut self, flow: usize, tr: &FlowTrace, mc: &ModeChanges) -> io::Result<()> {
        self.append(0, flow, tr.t_s.len(), |b| {
            put(b, tr.t_s.iter().map(|x| x.to_le_bytes()));
            put(b, tr.mbps.iter().map(|x| x.to_le_bytes()));
            put(b, tr.cwnd_bytes.iter().map(|x| x.to_le_bytes()));
            put(b, tr.srtt_ms.iter().map(|x| x.to_le_bytes()));
            b.extend_from_slice(&tr.mode);
            put(b, tr.estimate.iter().map(|x| x.to_le_bytes()));
            b.extend(tr.flag.iter().map(|&f| f as u8));
            put(b, tr.aux.iter().map(|x| x.to_le_bytes()));
        })?;
        self.append(1, flow, mc.t_s.len(), |b| {
            put(b, mc.t_s.iter().map(|x| x.to_le_bytes()));
            b.extend_from_slice(&mc.mode);
        })
    }

    /// Appends a UE's queue samples (and, in a network, where they were taken: `ue_place`).
    pub fn push_ue(&mut self, ue: usize, tr: &UeTrace) -> io::Result<()> {
        self.append(2, ue, tr.t_s.len(), |b| {
            put(b, tr.t_s.iter().map(|x| x.to_le_bytes()));
            put(b, tr.queue_bytes.iter().map(|x| x.to_le_bytes()));
            put(b, tr.queue_packets.iter().map(|x| x.to_le_bytes()));
        })?;
        if tr.x_m.is_empty() {
            return Ok(());
        }
        self.append(5, ue, tr.t_s.len(), |b| {
            put(b, tr.t_s.iter().map(|x| x.to_le_bytes()));
            put(b, tr.x_m.iter().map(|x| x.to_le_bytes()));
            put(b, tr.y_m.iter().map(|x| x.to_le_bytes()));
            put(b, tr.cell.iter().map(|x| x.to_le_bytes()));
            put(b, tr.rsrp_dbm.iter().map(|x| x.to_le_bytes()));
        })
    }

    /// Appends a per-second series (`flow_series` or `ue_series`): element `i` is second
    /// `first + i`.
    pub fn push_series(&mut self, table: usize, owner: usize, first: u64, mbps: &[f64]) -> io::Result<()> {
        self.append(table, owner, mbps.len(), |b| {
            put(b, (0..mbps.len() as u64).map(|i| ((first + i) as i64).to_le_bytes()));
            put(b, mbps.iter().map(|x| x.to_le_bytes()));
        })
    }

    /// Rows of table `t`.
    pub fn total_rows(&self, t: usize) -> u64 {
        self.rows[t].iter().map(|r| r.total).sum()
    }

    /// Bytes spooled.
    pub fn bytes(&self) -> u64 {
        self.store.len()
    }

    /// Whether the spool went to a temporary file.
    pub fn on_disk(&self) -> bool {
        matches!(self.store, Store::File { .. })
    }

    /// Rows of table `t` for each owner (`n` owners).
    fn owner_rows(&self, t: usize, owner: usize) -> u64 {
        self.rows[t].get(owner).map_or(0, |r| r.total)
    }

    /// The raw bytes of column `c` of table `t`, rows `[from, from + n)` of `owner`.
    fn read_col(&self, t: usize, owner: usize, c: usize, from: u64, n: u64, out: &mut Vec<u8>) -> io::Result<()> {
        let def = &TABLES[t];
        let w = def.cols[c].ty.width() as u64;
        let before: u64 = def.cols[..c].iter().map(|x| x.ty.width() as u64).sum();
        let Some(r) = self.rows[t].get(owner) else { return Ok(()) };
        let (mut row, end) = (0u64, from + n);
        for ch in &r.chunks {
            let (a, b) = (row.max(from), (row + ch.rows).min(end));
            if a < b {
                let off = ch.off + before * ch.rows + (a - row) * w;
                self.store.read_into(off, ((b - a) * w) as usize, out)?;
            }
            row += ch.rows;
            if row >= end {
                break;
            }
        }
        Ok(())
    }

    /// One owner's column `name` of table `t`, all rows, as raw little-endian bytes with its
    /// type (booleans one byte each).
    pub fn owner_column(&self, t: usize, owner: usize, name: &str) -> io::Result<Option<(Ty, Vec<u8>)>> {
        let Some(c) = TABLES[t].cols.iter().position(|x| x.name == name) else { return Ok(None) };
        let mut out = Vec::new();
        self.read_col(t, owner, c, 0, self.owner_rows(t, owner), &mut out)?;
        Ok(Some((TABLES[t].cols[c].ty, out)))
    }

    /// The rows of table `t` from global row `start` on (owners in index order, each
    /// owner's rows in time order), at most `max_rows` (fewer when string columns would pass
    /// 256 MiB): (owner, first row of the owner, rows) per owner touched.
    pub fn plan(&self, t: usize, owners: &Owners, start: u64, max_rows: u64) -> Vec<(usize, u64, u64)> {
        let def = &TABLES[t];
        let n_owners = match def.owner {
            Owner::Flow => owners.names.len(),
            Owner::Ue => owners.n_ues,
        };
        let string_bytes = |o: usize| {
            def.prefix
                .iter()
                .map(|p| match p {
                    Prefix::Name => owners.names[o].len(),
                    Prefix::Class => owners.classes[o].len(),
                    Prefix::Category => owners.categories[o].len(),
                    _ => 0,
                })
                .sum::<usize>()
        };
        let mut parts = Vec::new();
        let (mut row, mut taken, mut strings) = (0u64, 0u64, 0usize);
        for o in 0..n_owners {
            let n = self.owner_rows(t, o);
            if row + n <= start || n == 0 {
                row += n;
                continue;
            }
            let from = start.max(row) - row;
            let mut k = (n - from).min(max_rows - taken);
            let per_row = string_bytes(o).max(1);
            if strings + per_row * k as usize > MAX_BATCH_STRING_BYTES {
                k = ((MAX_BATCH_STRING_BYTES - strings.min(MAX_BATCH_STRING_BYTES)) / per_row) as u64;
                if k == 0 && taken == 0 {
                    k = 1;
                }
            }
            if k > 0 {
                parts.push((o, from, k));
                taken += k;
                strings += per_row * k as usize;
            }
            row += n;
            if taken >= max_rows || k < n - from {
                break;
            }
        }
        parts
    }

    /// Column `c` (shared columns first, then the spooled ones) of the rows `parts` (from
    /// [`Spool::plan`]) of table `t`, in Arrow layout.
    pub fn column(&self, t: usize, owners: &Owners, parts: &[(usize, u64, u64)], c: usize) -> io::Result<ArrowCol> {
        let def = &TABLES[t];
        let n = parts.iter().map(|p| p.2 as usize).sum::<usize>();
        if let Some(p) = def.prefix.get(c) {
            return Ok(match p {
                Prefix::IdU32 => {
                    let mut d = Vec::with_capacity(n * 4);
                    for &(o, _, k) in parts {
                        put(&mut d, std::iter::repeat_n((o as u32).to_le_bytes(), k as usize));
                    }
                    ArrowCol::Fixed(None, 0, d)
                }
                Prefix::IdI64 => {
                    let mut d = Vec::with_capacity(n * 8);
                    for &(o, _, k) in parts {
                        put(&mut d, std::iter::repeat_n((o as i64).to_le_bytes(), k as usize));
                    }
                    ArrowCol::Fixed(None, 0, d)
                }
                Prefix::Name | Prefix::Class | Prefix::Category => {
                    let s = |o: usize| -> &str {
                        match p {
                            Prefix::Name => &owners.names[o],
                            Prefix::Class => owners.classes[o],
                            _ => &owners.categories[o],
                        }
                    };
                    let (mut offs, mut data) = (Vec::with_capacity((n + 1) * 4), Vec::new());
                    offs.extend_from_slice(&0i32.to_le_bytes());
                    for &(o, _, k) in parts {
                        let b = s(o).as_bytes();
                        for _ in 0..k {
                            data.extend_from_slice(b);
                            offs.extend_from_slice(&(data.len() as i32).to_le_bytes());
                        }
                    }
                    ArrowCol::Utf8(offs, data)
                }
            });
        }
        let c = c - def.prefix.len();
        let ty = def.cols[c].ty;
        let mut d = Vec::with_capacity(n * ty.width());
        for &(o, from, k) in parts {
            self.read_col(t, o, c, from, k, &mut d)?;
        }
        Ok(match ty {
            Ty::Bool => ArrowCol::Fixed(None, 0, bitmap(d.iter().map(|&b| b != 0), n)),
            Ty::F64 => {
                let finite = |i: usize| f64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().expect("8 bytes")).is_finite();
                let nulls = (0..n).filter(|&i| !finite(i)).count();
                let validity = (nulls > 0).then(|| bitmap((0..n).map(finite), n));
                ArrowCol::Fixed(validity, nulls, d)
            }
            _ => ArrowCol::Fixed(None, 0, d),
        })
    }

    /// [`Spool::plan`] and every [`Spool::column`] of it: (rows, columns).
    #[cfg(test)]
    pub fn batch(&self, t: usize, owners: &Owners, start: u64, max_rows: u64) -> io::Result<(u64, Vec<ArrowCol>)> {
        let parts = self.plan(t, owners, start, max_rows);
        let ncols = TABLES[t].prefix.len() + TABLES[t].cols.len();
        let cols = (0..ncols).map(|c| self.column(t, owners, &parts, c)).collect::<io::Result<Vec<_>>>()?;
        Ok((parts.iter().map(|p| p.2).sum(), cols))
    }
}

impl Default for Spool {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cellshare_sim::results::{FlowSample, UeSample};

    fn flow_trace(n: usize, t0: f64) -> FlowTrace {
        let mut tr = FlowTrace::default();
        for i in 0..n {
            tr.push(FlowSample {
                t_s: t0 + i as f64,
                mbps: i as f64 * 0.5,
                cwnd_bytes: i as u64,
                srtt_ms: 1.0,
                mode: (i % 3) as u8,
                estimate: if i % 2 == 0 { f64::NAN } else { 2.0 },
                flag: i % 4 == 0,
                aux: if i % 3 == 0 { f64::NAN } else { 3.0 },
            });
        }
        tr
    }

    fn f64s(b: &[u8]) -> Vec<f64> {
        b.chunks(8).map(|c| f64::from_le_bytes(c.try_into().unwrap())).collect()
    }

    #[test]
    fn batches_are_owner_major_across_chunks_and_the_file() {
        let mut s = Spool::new();
        let owners = Owners {
            names: vec!["a".into(), "bb".into(), "c".into()],
            classes: vec!["foreground"; 3],
            categories: vec!["custom".into(); 3],
            n_ues: 1,
        };
        // Two drains: flow 0 and 1 in each, flow 2 never.
        s.push_flow(0, &flow_trace(3, 0.0), &ModeChanges::default()).unwrap();
        s.push_flow(1, &flow_trace(2, 100.0), &ModeChanges::default()).unwrap();
        s.push_flow(0, &flow_trace(2, 3.0), &ModeChanges::default()).unwrap();
        s.push_flow(1, &flow_trace(1, 102.0), &ModeChanges::default()).unwrap();
        assert_eq!(s.total_rows(0), 8);
        let (n, cols) = s.batch(0, &owners, 0, 100).unwrap();
        assert_eq!(n, 8);
        let ArrowCol::Fixed(_, _, ids) = &cols[0] else { panic!() };
        assert_eq!(ids.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect::<Vec<_>>(), [0, 0, 0, 0, 0, 1, 1, 1]);
        let ArrowCol::Utf8(offs, data) = &cols[1] else { panic!() };
        assert_eq!(std::str::from_utf8(data).unwrap(), "aaaaabbbbbb");
        assert_eq!(offs.len(), 9 * 4);
        let ArrowCol::Fixed(None, 0, t) = &cols[2] else { panic!() };
        assert_eq!(f64s(t), [0.0, 1.0, 2.0, 3.0, 4.0, 100.0, 101.0, 102.0]);
        // estimate: NaN at even sample indices is null
        let ArrowCol::Fixed(Some(valid), nulls, _) = &cols[7] else { panic!() };
        assert_eq!(*nulls, 2 + 1 + 1 + 1); // flow 0: 2 + 1, flow 1: 1 + 1
        assert_eq!(valid[0] & 0b111, 0b010);
        // A batch in the middle, across the owner boundary.
        let (n, cols) = s.batch(0, &owners, 4, 3).unwrap();
        assert_eq!(n, 3);
        let ArrowCol::Fixed(_, _, t) = &cols[2] else { panic!() };
        assert_eq!(f64s(t), [4.0, 100.0, 101.0]);
        // Per-owner column reads.
        let (ty, b) = s.owner_column(0, 1, "t_s").unwrap().unwrap();
        assert_eq!((ty, f64s(&b)), (Ty::F64, vec![100.0, 101.0, 102.0]));
        assert!(s.owner_column(0, 2, "t_s").unwrap().unwrap().1.is_empty());
    }

    #[test]
    fn spills_to_an_unnamed_file_and_reads_back() {
        let mut s = Spool::new();
        let mut tr = UeTrace::default();
        for i in 0..(MEM_MAX / 20 + 10) {
            tr.push(UeSample { t_s: i as f64, queue_bytes: i as u64, queue_packets: i as u32 });
        }
        s.push_ue(0, &tr).unwrap();
        s.push_ue(0, &tr).unwrap();
        assert!(s.on_disk());
        let owners = Owners { n_ues: 1, ..Owners::default() };
        let total = s.total_rows(2);
        assert_eq!(total, 2 * tr.len() as u64);
        let (n, cols) = s.batch(2, &owners, total - 2, 10).unwrap();
        assert_eq!(n, 2);
        let ArrowCol::Fixed(_, _, t) = &cols[1] else { panic!() };
        let last = (tr.len() - 1) as f64;
        assert_eq!(f64s(t), [last - 1.0, last]);
    }

    #[test]
    fn spooled_tables_are_the_contracts_columns() {
        for def in &TABLES {
            let public = if def.name == "ue_place" { &contract::UE_PLACE_COLUMNS[..] } else { contract::table(def.name).expect("in the contract").columns };
            assert_eq!(def.prefix.iter().map(|p| p.ty()).collect::<Vec<_>>(), public[..def.prefix.len()].iter().map(|c| c.ty).collect::<Vec<_>>(), "{}", def.name);
            let n = def.prefix.len() + def.cols.len();
            let names = |cs: &[Column]| cs.iter().map(|c| (c.name, c.ty)).collect::<Vec<_>>();
            assert_eq!(names(&public[def.prefix.len()..n]), names(def.cols), "{}", def.name);
            assert!(def.cols.iter().all(|c| c.ty != Ty::Utf8), "{}", def.name);
        }
    }
}
