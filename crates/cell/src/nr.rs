//! The NR cell's configuration (`[cell.nr]`, with `cell.rat = "nr"`) and what the cell
//! builds from it: the carrier (numerology, frequency range, PRBs), its PDSCH and MCS/CQI
//! tables, the UE's layer capability, HARQ with NR's process count and K1 feedback timing,
//! and an optional TDD pattern. The PHY is [`cellshare_channel::nr`]; the per-slot tables
//! the scheduler reads are [`cellshare_channel::nr_link`].
//!
//! What counts slots and what counts milliseconds on NR is decided where each quantity
//! lives (see `docs/nr.md`): the scheduling period, the CQI report timing, the MAC pipeline,
//! HARQ and the scheduler's time constant count slots; fading, shadowing, mobility,
//! handover timers and t-Reordering are times.

use cellshare_channel::nr::{bandwidths_mhz, max_prbs, CqiTable, FrequencyRange, McsTable, Numerology, PdschConfig};
use cellshare_channel::{NrRadio, NrTbsTable};
use cellshare_core::Slot;
use serde::{Deserialize, Serialize};

/// The radio access technology of the cell (`cell.rat`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Rat {
    /// LTE: 1 ms TTIs, TS 36.213's tables, up to 20 MHz.
    #[default]
    Lte,
    /// 5G NR: slots of 1/2^μ ms, TS 38.214's tables, carriers up to 100 MHz (FR1) or 400 MHz
    /// (FR2), configured by `[cell.nr]`.
    Nr,
}

/// The frequency range of an NR carrier (`cell.nr.frequency_range`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Fr {
    /// FR1 (410 MHz – 7.125 GHz): subcarrier spacings 15, 30, 60 kHz (μ = 0..2), carriers up to
    /// 100 MHz (TS 38.101-1 Table 5.3.2-1).
    #[default]
    Fr1,
    /// FR2 (24.25 – 71 GHz): 60 and 120 kHz (μ = 2, 3), carriers of 50 to 400 MHz
    /// (TS 38.101-2 Table 5.3.2-1).
    Fr2,
}

impl Fr {
    fn range(self) -> FrequencyRange {
        match self {
            Fr::Fr1 => FrequencyRange::Fr1,
            Fr::Fr2 => FrequencyRange::Fr2,
        }
    }
}

/// The PDSCH MCS table (`cell.nr.mcs_table`); the UE reports the CQI table that goes with it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NrMcsTable {
    /// MCS table 1 (TS 38.214 Table 5.1.3.1-1, up to 64QAM, MCS 0–28) with CQI table 1
    /// (Table 5.2.2.1-2): what a UE uses when RRC configures no `mcs-Table`.
    #[default]
    Qam64,
    /// MCS table 2 (Table 5.1.3.1-2, up to 256QAM, MCS 0–27) with CQI table 2
    /// (Table 5.2.2.1-3).
    Qam256,
}

impl NrMcsTable {
    /// The MCS table and its CQI table.
    pub fn tables(self) -> (McsTable, CqiTable) {
        match self {
            NrMcsTable::Qam64 => (McsTable::Qam64, CqiTable::Table1),
            NrMcsTable::Qam256 => (McsTable::Qam256, CqiTable::Table2),
        }
    }
}

fn default_numerology() -> u8 {
    1
}
fn default_symbols() -> u8 {
    PdschConfig::default().symbols
}
fn default_dmrs() -> u8 {
    PdschConfig::default().dmrs_re_per_prb
}
fn default_overhead() -> u8 {
    PdschConfig::default().overhead_re_per_prb
}
fn default_ue_max_layers() -> u8 {
    4
}
fn default_harq_processes() -> u32 {
    16
}
fn default_k1() -> u32 {
    2
}

/// `[cell.nr]`: the NR carrier and its procedures (read when `cell.rat = "nr"`; the carrier's
/// bandwidth is `cell.bandwidth_mhz`). Every key has a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NrConfig {
    /// Numerology μ, 0 to 3: subcarrier spacing 15·2^μ kHz, slots of 1/2^μ ms (14 symbols,
    /// TS 38.211 § 4.3.2). FR1 allows 0–2, FR2 2–3. Default 1 (30 kHz, 0.5 ms slots).
    #[serde(default = "default_numerology")]
    pub numerology: u8,
    /// `"fr1"` or `"fr2"`: the frequency range, whose table (TS 38.101-1 / 38.101-2, Table
    /// 5.3.2-1) gives the carrier's PRBs for `cell.bandwidth_mhz` at this numerology (e.g. 273
    /// PRBs for 100 MHz at 30 kHz). Default `"fr1"`.
    #[serde(default)]
    pub frequency_range: Fr,
    /// `"qam64"` (MCS table 1 with CQI table 1) or `"qam256"` (MCS table 2 with CQI table 2),
    /// TS 38.214 § 5.1.3.1 and § 5.2.2.1. Default `"qam64"` (the tables of a UE without RRC
    /// `mcs-Table`).
    #[serde(default)]
    pub mcs_table: NrMcsTable,
    /// OFDM symbols of the PDSCH per slot, N_symb (1 to 14). Default 13 (a one-symbol
    /// control region; see `cellshare_channel::nr::PdschConfig`).
    #[serde(default = "default_symbols")]
    pub symbols: u8,
    /// DM-RS resource elements per PRB per slot, N_DMRS (0 to 48). Default 12 (one front-loaded
    /// type-1 DM-RS symbol).
    #[serde(default = "default_dmrs")]
    pub dmrs_re_per_prb: u8,
    /// The RRC `xOverhead` N_oh, REs per PRB per slot: 0, 6, 12 or 18. Default 0.
    #[serde(default = "default_overhead")]
    pub overhead_re_per_prb: u8,
    /// The UE's capability in downlink MIMO layers (1 to 4); a radio channel's `layers` may not
    /// exceed it. Default 4 (TS 38.101-1 § 7.2 makes four receive antennas mandatory in the
    /// n7, n38, n41 and n77–n79 bands).
    #[serde(default = "default_ue_max_layers")]
    pub ue_max_layers: u8,
    /// HARQ processes per UE (1 to 16; replaces `cell.link.harq_processes` on NR). Default 16,
    /// NR's maximum (TS 38.331 `nrofHARQ-ProcessesForPDSCH`, TS 38.321 § 5.3.2).
    #[serde(default = "default_harq_processes")]
    pub harq_processes: u32,
    /// K1, slots from a block on air to its HARQ-ACK (TS 38.213 § 9.2.3,
    /// `dl-DataToUL-ACK`), 0 to 15. A failed block is retransmitted in the slot after its
    /// feedback: its HARQ round trip is `cell.link.pipeline_delay_tti` + K1 + 1 slots
    /// (replacing `cell.link.harq_rtt_tti` on NR). Default 2 (5G-LENA's `NrGnbPhy::N1Delay`:
    /// the UE's processing time from PDSCH to HARQ-ACK, 2 slots).
    #[serde(default = "default_k1")]
    pub k1_slots: u32,
    /// An optional TDD pattern repeated over the slots, e.g. `"DDDSU"`: `D` a downlink slot,
    /// `U` an uplink slot, `S` a special slot, which carries downlink data as a `D` slot does
    /// (its downlink symbols hold the PDSCH; its guard period and its few uplink symbols carry
    /// no data). The cell schedules the downlink only in `D` and `S` slots, the UEs' uplinks
    /// (`ues[i].uplink`) send only in `U` slots. At most 64 letters, with at least one `D`
    /// and one `U`. Default: none (FDD: downlink in every slot, the uplink on its own carrier).
    #[serde(default)]
    pub tdd_pattern: Option<String>,
}

impl Default for NrConfig {
    fn default() -> Self {
        Self {
            numerology: default_numerology(),
            frequency_range: Fr::default(),
            mcs_table: NrMcsTable::default(),
            symbols: default_symbols(),
            dmrs_re_per_prb: default_dmrs(),
            overhead_re_per_prb: default_overhead(),
            ue_max_layers: default_ue_max_layers(),
            harq_processes: default_harq_processes(),
            k1_slots: default_k1(),
            tdd_pattern: None,
        }
    }
}

/// A key of `[cell.nr]` (or `cell.bandwidth_mhz`) that is out of range: (key, value, expected).
pub type NrIssue = (&'static str, String, String);

impl NrConfig {
    /// The numerology (checked by [`validate`](Self::validate); μ above 3 reads as 3).
    pub fn numerology(&self) -> Numerology {
        Numerology::new(self.numerology.min(3)).expect("0..=3")
    }

    /// The slot of the numerology.
    pub fn slot(&self) -> Slot {
        Slot::nr(self.numerology.min(3)).expect("0..=3")
    }

    /// The PDSCH resources per PRB per slot.
    pub fn pdsch(&self) -> PdschConfig {
        PdschConfig { symbols: self.symbols, dmrs_re_per_prb: self.dmrs_re_per_prb, overhead_re_per_prb: self.overhead_re_per_prb }
    }

    /// The carrier's PRBs for a bandwidth of `bandwidth_mhz`, or the issue naming
    /// `bandwidth_mhz` with the bandwidths this numerology and range allow.
    pub fn n_prb(&self, bandwidth_mhz: f64) -> Result<u32, NrIssue> {
        let fr = self.frequency_range.range();
        let mu = self.numerology();
        let allowed = bandwidths_mhz(fr, mu);
        let whole = bandwidth_mhz.fract() == 0.0 && bandwidth_mhz > 0.0 && bandwidth_mhz <= 400.0;
        whole.then(|| max_prbs(fr, mu, bandwidth_mhz as u32)).flatten().ok_or_else(|| {
            let list: Vec<String> = allowed.iter().map(|b| b.to_string()).collect();
            let expected = if allowed.is_empty() {
                format!("a numerology allowed in {:?} (FR1: 0-2, FR2: 2-3), so no bandwidth fits μ = {}", self.frequency_range, mu.mu())
            } else {
                format!(
                    "one of {} (MHz: the carriers of TS 38.101-{} Table 5.3.2-1 at {} kHz)",
                    list.join(", "),
                    if fr == FrequencyRange::Fr1 { 1 } else { 2 },
                    mu.scs_khz()
                )
            };
            ("bandwidth_mhz", bandwidth_mhz.to_string(), expected)
        })
    }

    /// Checks every key (not the bandwidth: [`n_prb`](Self::n_prb)); the issue names the key
    /// inside `[cell.nr]`.
    pub fn validate(&self) -> Result<(), NrIssue> {
        let err = |k: &'static str, v: String, e: &str| Err((k, v, e.to_string()));
        if self.numerology > 3 {
            return err("numerology", self.numerology.to_string(), "0 to 3 (subcarrier spacing 15·2^μ kHz)");
        }
        let fr = self.frequency_range.range();
        if bandwidths_mhz(fr, self.numerology()).is_empty() {
            let ok = if fr == FrequencyRange::Fr1 { "0 to 2 in FR1 (15, 30, 60 kHz)" } else { "2 or 3 in FR2 (60, 120 kHz)" };
            return err("numerology", self.numerology.to_string(), ok);
        }
        if !(1..=14).contains(&self.symbols) {
            return err("symbols", self.symbols.to_string(), "1 to 14 PDSCH symbols per slot");
        }
        if self.dmrs_re_per_prb > 48 {
            return err("dmrs_re_per_prb", self.dmrs_re_per_prb.to_string(), "0 to 48 DM-RS REs per PRB");
        }
        if ![0, 6, 12, 18].contains(&self.overhead_re_per_prb) {
            return err("overhead_re_per_prb", self.overhead_re_per_prb.to_string(), "0, 6, 12 or 18 (RRC xOverhead)");
        }
        if self.pdsch().re_per_prb() == 0 {
            return err(
                "dmrs_re_per_prb",
                self.dmrs_re_per_prb.to_string(),
                &format!("fewer DM-RS and overhead REs than the {} REs of {} symbols", 12 * self.symbols as u32, self.symbols),
            );
        }
        if !(1..=4).contains(&self.ue_max_layers) {
            return err("ue_max_layers", self.ue_max_layers.to_string(), "1 to 4 layers");
        }
        if !(1..=16).contains(&self.harq_processes) {
            return err("harq_processes", self.harq_processes.to_string(), "1 to 16 HARQ processes");
        }
        if self.k1_slots > 15 {
            return err("k1_slots", self.k1_slots.to_string(), "0 to 15 slots (TS 38.213 dl-DataToUL-ACK)");
        }
        if let Some(p) = &self.tdd_pattern {
            TddPattern::parse(p).map_err(|e| ("tdd_pattern", format!("{p:?}"), e))?;
        }
        Ok(())
    }

    /// The TDD pattern, if any (checked by [`validate`](Self::validate)).
    pub fn tdd(&self) -> Option<TddPattern> {
        self.tdd_pattern.as_deref().map(|p| TddPattern::parse(p).expect("validated"))
    }

    /// The carrier's PHY for a carrier of `n_prb` PRBs.
    pub fn phy(&self, n_prb: u32) -> NrPhy {
        let (mcs_table, cqi_table) = self.mcs_table.tables();
        NrPhy { tbs: NrTbsTable::get(mcs_table, self.pdsch(), n_prb), cqi_table, scs_khz: self.numerology().scs_khz() }
    }
}

/// An NR carrier's PHY as the cell uses it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NrPhy {
    /// The carrier's transport block sizes (and MCS table).
    pub tbs: &'static NrTbsTable,
    /// The CQI table the UEs report.
    pub cqi_table: CqiTable,
    /// Subcarrier spacing, kHz.
    pub scs_khz: u32,
}

impl NrPhy {
    /// What the carrier's radio channels follow with CQIs judged at `bler_target` (TS 38.214
    /// § 5.2.2.1: 0.1).
    pub fn radio(&self, bler_target: f64) -> NrRadio {
        NrRadio::new(self.tbs, self.cqi_table, bler_target, self.scs_khz)
    }
}

/// A TDD slot pattern (`cell.nr.tdd_pattern`), repeated from slot 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TddPattern {
    /// Bit k: slot k of the pattern carries downlink (`D` or `S`).
    downlink: u64,
    /// Bit k: slot k of the pattern is an uplink slot (`U`).
    uplink: u64,
    len: u32,
}

impl TddPattern {
    /// Parses a pattern of `D`, `S` and `U` (1 to 64 letters, at least one `D` and one `U`);
    /// the error says what was expected.
    pub fn parse(p: &str) -> Result<TddPattern, String> {
        let letters = p.trim();
        if letters.is_empty() || letters.len() > 64 {
            return Err("1 to 64 slots of D, S and U, e.g. \"DDDSU\"".into());
        }
        let (mut downlink, mut uplink, mut d) = (0u64, 0u64, false);
        for (k, c) in letters.chars().enumerate() {
            match c {
                'D' => {
                    downlink |= 1 << k;
                    d = true;
                }
                'S' => downlink |= 1 << k,
                'U' => uplink |= 1 << k,
                other => return Err(format!("only the letters D, S and U (found {other:?}), e.g. \"DDDSU\"")),
            }
        }
        if !d {
            return Err("a pattern with at least one downlink slot D, e.g. \"DDDSU\"".into());
        }
        if uplink == 0 {
            return Err("a pattern with at least one uplink slot U (without one the pattern is FDD: leave tdd_pattern out)".into());
        }
        Ok(TddPattern { downlink, uplink, len: letters.len() as u32 })
    }

    /// The pattern's length in slots.
    pub fn len(&self) -> u32 {
        self.len
    }

    /// Whether the pattern is empty (never: a parsed pattern has a `D` and a `U`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether slot `slot` carries downlink data (`D` or `S`).
    #[inline]
    pub fn is_downlink(&self, slot: u64) -> bool {
        self.downlink >> (slot % self.len as u64) & 1 == 1
    }

    /// Whether slot `slot` is an uplink slot (`U`).
    #[inline]
    pub fn is_uplink(&self, slot: u64) -> bool {
        self.uplink >> (slot % self.len as u64) & 1 == 1
    }

    /// The first uplink slot at or after `slot`.
    pub fn next_uplink(&self, slot: u64) -> u64 {
        (slot..slot + self.len as u64).find(|&s| self.is_uplink(s)).expect("a pattern has an uplink slot")
    }

    /// The first downlink slot at or after `slot`.
    pub fn next_downlink(&self, slot: u64) -> u64 {
        (slot..slot + self.len as u64).find(|&s| self.is_downlink(s)).expect("a pattern has a downlink slot")
    }

    /// The share of slots carrying downlink data.
    pub fn downlink_share(&self) -> f64 {
        self.downlink.count_ones() as f64 / self.len as f64
    }

    /// The share of uplink slots.
    pub fn uplink_share(&self) -> f64 {
        self.uplink.count_ones() as f64 / self.len as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tdd_patterns_parse_and_repeat() {
        let p = TddPattern::parse("DDDSU").unwrap();
        let dl: Vec<bool> = (0..10).map(|s| p.is_downlink(s)).collect();
        assert_eq!(dl, [true, true, true, true, false, true, true, true, true, false]);
        assert!(p.is_uplink(4) && p.is_uplink(9) && !p.is_uplink(3));
        assert_eq!((p.next_uplink(5), p.next_uplink(9), p.next_downlink(4)), (9, 9, 5));
        assert_eq!((p.downlink_share(), p.uplink_share()), (0.8, 0.2));
        assert!(TddPattern::parse("SSSU").unwrap_err().contains("downlink slot D"));
        assert!(TddPattern::parse("DDDD").unwrap_err().contains("uplink slot U"));
        assert!(TddPattern::parse("DDXU").unwrap_err().contains("'X'"));
        assert!(TddPattern::parse("").is_err());
    }

    #[test]
    fn carriers_follow_the_tables_and_name_the_allowed_bandwidths() {
        let nr = NrConfig::default();
        assert_eq!(nr.n_prb(100.0), Ok(273));
        let (k, v, e) = nr.n_prb(33.0).unwrap_err();
        assert_eq!((k, v.as_str()), ("bandwidth_mhz", "33"));
        assert!(e.contains("100") && e.contains("30 kHz"), "{e}");
        let fr2 = NrConfig { numerology: 3, frequency_range: Fr::Fr2, ..NrConfig::default() };
        assert_eq!(fr2.n_prb(400.0), Ok(264));
        let bad = NrConfig { numerology: 3, ..NrConfig::default() };
        assert_eq!(bad.validate().unwrap_err().0, "numerology");
        assert_eq!(NrConfig { numerology: 4, ..NrConfig::default() }.validate().unwrap_err().0, "numerology");
        assert_eq!(NrConfig { ue_max_layers: 5, ..NrConfig::default() }.validate().unwrap_err().0, "ue_max_layers");
        let no_dl = NrConfig { tdd_pattern: Some("UUSU".into()), ..NrConfig::default() };
        assert_eq!(no_dl.validate().unwrap_err().0, "tdd_pattern");
        assert_eq!(NrConfig::default().slot().ns(), 500_000);
    }
}
