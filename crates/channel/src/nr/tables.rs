//! The MCS and CQI tables of TS 38.214 (V17.x; unchanged since Release 15): modulation order
//! Q_m, target code rate R × 1024 and spectral efficiency Q_m·R (bits per resource element
//! per layer), transcribed from Tables 5.1.3.1-1, 5.1.3.1-2 (PDSCH MCS index tables 1 and 2)
//! and 5.2.2.1-2, 5.2.2.1-3 (4-bit CQI tables 1 and 2).
//!
//! Unlike LTE, whose MCS indexes a TBS index and a table of precomputed sizes (TS 36.213
//! Table 7.1.7.2.1-1), an NR MCS names a code rate directly and the transport block size is
//! computed from it ([`super::tbs`]). MCS table 1 tops out at 64QAM (MCS 0–28), table 2 at
//! 256QAM (MCS 0–27); the indexes above (29–31 and 28–31) only name a modulation for
//! retransmissions and carry no code rate: [`mcs_entry`] returns `None` for them.

/// The PDSCH MCS index table (RRC `mcs-Table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum McsTable {
    /// TS 38.214 Table 5.1.3.1-1: QPSK, 16QAM, 64QAM, MCS 0–28.
    Qam64,
    /// TS 38.214 Table 5.1.3.1-2: up to 256QAM, MCS 0–27.
    Qam256,
}

/// The 4-bit CQI table (RRC `cqi-Table`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CqiTable {
    /// TS 38.214 Table 5.2.2.1-2: up to 64QAM.
    Table1,
    /// TS 38.214 Table 5.2.2.1-3: up to 256QAM.
    Table2,
}

/// One row of an MCS or CQI table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McsEntry {
    /// Modulation order Q_m: bits per symbol (2 QPSK, 4 16QAM, 6 64QAM, 8 256QAM).
    pub qm: u8,
    /// Target code rate R × 1024 (682.5 and 916.5 occur in the 256QAM table).
    pub rate_x1024: f64,
    /// Spectral efficiency Q_m·R as the standard prints it (four decimals).
    pub efficiency: f64,
}

/// A table row with the code rate stored doubled (2·R·1024 is an integer in every table), so
/// the TBS procedure computes N_info exactly in integers.
#[derive(Clone, Copy)]
pub(crate) struct Row {
    pub(crate) qm: u8,
    pub(crate) rate_x2048: u16,
    pub(crate) efficiency: f64,
}

const fn r(qm: u8, rate_x2048: u16, efficiency: f64) -> Row {
    Row { qm, rate_x2048, efficiency }
}

/// TS 38.214 Table 5.1.3.1-1 (MCS index table 1 for PDSCH), MCS 0–28.
const MCS_TABLE_1: [Row; 29] = [
    r(2, 240, 0.2344),
    r(2, 314, 0.3066),
    r(2, 386, 0.3770),
    r(2, 502, 0.4902),
    r(2, 616, 0.6016),
    r(2, 758, 0.7402),
    r(2, 898, 0.8770),
    r(2, 1052, 1.0273),
    r(2, 1204, 1.1758),
    r(2, 1358, 1.3262),
    r(4, 680, 1.3281),
    r(4, 756, 1.4766),
    r(4, 868, 1.6953),
    r(4, 980, 1.9141),
    r(4, 1106, 2.1602),
    r(4, 1232, 2.4063),
    r(4, 1316, 2.5703),
    r(6, 876, 2.5664),
    r(6, 932, 2.7305),
    r(6, 1034, 3.0293),
    r(6, 1134, 3.3223),
    r(6, 1232, 3.6094),
    r(6, 1332, 3.9023),
    r(6, 1438, 4.2129),
    r(6, 1544, 4.5234),
    r(6, 1644, 4.8164),
    r(6, 1746, 5.1152),
    r(6, 1820, 5.3320),
    r(6, 1896, 5.5547),
];

/// TS 38.214 Table 5.1.3.1-2 (MCS index table 2 for PDSCH), MCS 0–27.
const MCS_TABLE_2: [Row; 28] = [
    r(2, 240, 0.2344),
    r(2, 386, 0.3770),
    r(2, 616, 0.6016),
    r(2, 898, 0.8770),
    r(2, 1204, 1.1758),
    r(4, 756, 1.4766),
    r(4, 868, 1.6953),
    r(4, 980, 1.9141),
    r(4, 1106, 2.1602),
    r(4, 1232, 2.4063),
    r(4, 1316, 2.5703),
    r(6, 932, 2.7305),
    r(6, 1034, 3.0293),
    r(6, 1134, 3.3223),
    r(6, 1232, 3.6094),
    r(6, 1332, 3.9023),
    r(6, 1438, 4.2129),
    r(6, 1544, 4.5234),
    r(6, 1644, 4.8164),
    r(6, 1746, 5.1152),
    r(8, 1365, 5.3320),
    r(8, 1422, 5.5547),
    r(8, 1508, 5.8906),
    r(8, 1594, 6.2266),
    r(8, 1682, 6.5703),
    r(8, 1770, 6.9141),
    r(8, 1833, 7.1602),
    r(8, 1896, 7.4063),
];

/// TS 38.214 Table 5.2.2.1-2 (CQI table 1), CQI 1–15 (CQI 0 is "out of range").
const CQI_TABLE_1: [Row; 15] = [
    r(2, 156, 0.1523),
    r(2, 240, 0.2344),
    r(2, 386, 0.3770),
    r(2, 616, 0.6016),
    r(2, 898, 0.8770),
    r(2, 1204, 1.1758),
    r(4, 756, 1.4766),
    r(4, 980, 1.9141),
    r(4, 1232, 2.4063),
    r(6, 932, 2.7305),
    r(6, 1134, 3.3223),
    r(6, 1332, 3.9023),
    r(6, 1544, 4.5234),
    r(6, 1746, 5.1152),
    r(6, 1896, 5.5547),
];

/// TS 38.214 Table 5.2.2.1-3 (CQI table 2), CQI 1–15 (CQI 0 is "out of range").
const CQI_TABLE_2: [Row; 15] = [
    r(2, 156, 0.1523),
    r(2, 386, 0.3770),
    r(2, 898, 0.8770),
    r(4, 756, 1.4766),
    r(4, 980, 1.9141),
    r(4, 1232, 2.4063),
    r(6, 932, 2.7305),
    r(6, 1134, 3.3223),
    r(6, 1332, 3.9023),
    r(6, 1544, 4.5234),
    r(6, 1746, 5.1152),
    r(8, 1422, 5.5547),
    r(8, 1594, 6.2266),
    r(8, 1770, 6.9141),
    r(8, 1896, 7.4063),
];

impl From<Row> for McsEntry {
    fn from(row: Row) -> McsEntry {
        McsEntry { qm: row.qm, rate_x1024: row.rate_x2048 as f64 / 2.0, efficiency: row.efficiency }
    }
}

#[inline]
pub(crate) fn mcs_rows(t: McsTable) -> &'static [Row] {
    match t {
        McsTable::Qam64 => &MCS_TABLE_1,
        McsTable::Qam256 => &MCS_TABLE_2,
    }
}

#[inline]
pub(crate) fn mcs_row(t: McsTable, mcs: u8) -> Option<Row> {
    mcs_rows(t).get(mcs as usize).copied()
}

/// The row of MCS `mcs` in table `t`; `None` for the reserved indexes (29–31 in table 1,
/// 28–31 in table 2) and above.
#[inline]
pub fn mcs_entry(t: McsTable, mcs: u8) -> Option<McsEntry> {
    mcs_row(t, mcs).map(McsEntry::from)
}

/// The highest MCS with a code rate: 28 in table 1, 27 in table 2.
#[inline]
pub fn max_mcs(t: McsTable) -> u8 {
    mcs_rows(t).len() as u8 - 1
}

/// The row of CQI `cqi` (1–15) in table `t`; `None` for CQI 0 ("out of range") and above 15.
pub fn cqi_entry(t: CqiTable, cqi: u8) -> Option<McsEntry> {
    let rows: &[Row; 15] = match t {
        CqiTable::Table1 => &CQI_TABLE_1,
        CqiTable::Table2 => &CQI_TABLE_2,
    };
    cqi.checked_sub(1).and_then(|i| rows.get(i as usize)).map(|&row| McsEntry::from(row))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_have_their_standard_rows() {
        assert_eq!(max_mcs(McsTable::Qam64), 28);
        assert_eq!(max_mcs(McsTable::Qam256), 27);
        assert_eq!(mcs_entry(McsTable::Qam64, 29), None);
        assert_eq!(mcs_entry(McsTable::Qam256, 28), None);
        assert_eq!(cqi_entry(CqiTable::Table1, 0), None);
        assert_eq!(cqi_entry(CqiTable::Table2, 16), None);
        let e = |qm, rate_x1024, efficiency| Some(McsEntry { qm, rate_x1024, efficiency });
        assert_eq!(mcs_entry(McsTable::Qam64, 0), e(2, 120.0, 0.2344));
        assert_eq!(mcs_entry(McsTable::Qam64, 10), e(4, 340.0, 1.3281));
        assert_eq!(mcs_entry(McsTable::Qam64, 17), e(6, 438.0, 2.5664));
        assert_eq!(mcs_entry(McsTable::Qam64, 28), e(6, 948.0, 5.5547));
        assert_eq!(mcs_entry(McsTable::Qam256, 20), e(8, 682.5, 5.3320));
        assert_eq!(mcs_entry(McsTable::Qam256, 26), e(8, 916.5, 7.1602));
        assert_eq!(cqi_entry(CqiTable::Table1, 1), e(2, 78.0, 0.1523));
        assert_eq!(cqi_entry(CqiTable::Table1, 15), e(6, 948.0, 5.5547));
        assert_eq!(cqi_entry(CqiTable::Table2, 12), e(8, 711.0, 5.5547));
        assert_eq!(cqi_entry(CqiTable::Table2, 15), e(8, 948.0, 7.4063));
    }

    #[test]
    fn efficiencies_are_the_products_the_standard_rounds() {
        // Every printed efficiency is Q_m·R/1024 rounded to four decimals, efficiencies rise
        // with the index and modulation orders never fall.
        let mut all: Vec<Vec<McsEntry>> = Vec::new();
        for t in [McsTable::Qam64, McsTable::Qam256] {
            all.push((0..=max_mcs(t)).map(|m| mcs_entry(t, m).unwrap()).collect());
        }
        for t in [CqiTable::Table1, CqiTable::Table2] {
            all.push((1..=15).map(|c| cqi_entry(t, c).unwrap()).collect());
        }
        for table in &all {
            for e in table {
                let exact = e.qm as f64 * e.rate_x1024 / 1024.0;
                assert!((exact - e.efficiency).abs() <= 0.00006, "{e:?}: {exact}");
            }
            // MCS table 1 repeats efficiencies at its modulation changes (9/10, 16/17 differ by
            // less than 0.004); otherwise efficiencies strictly rise.
            assert!(table.windows(2).all(|w| w[1].efficiency > w[0].efficiency - 0.004 && w[1].qm >= w[0].qm));
        }
    }
}
