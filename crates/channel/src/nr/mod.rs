//! # The 5G NR physical layer of a downlink carrier
//!
//! What a reader who knows the LTE model ([`crate::lte_tables`], [`crate::error_model`]) needs
//! to follow NR, and where each number comes from.
//!
//! - **Numerology** ([`numerology`]): NR scales the subcarrier spacing by 2^μ (15, 30, 60,
//!   120 kHz for μ = 0..3). A slot is 14 symbols whatever μ, so it lasts 1 ms / 2^μ and the
//!   scheduler runs 2^μ times per millisecond instead of once per LTE TTI. The carrier's PRB
//!   count N_RB comes from TS 38.101-1 (FR1, up to 100 MHz) and TS 38.101-2 (FR2, up to
//!   400 MHz), Table 5.3.2-1 of each, Release 17: 273 PRBs at 100 MHz and 30 kHz.
//! - **MCS and CQI** ([`tables`]): TS 38.214 Tables 5.1.3.1-1/-2 (MCS tables 1 and 2, up to
//!   64QAM and 256QAM) and 5.2.2.1-2/-3 (CQI tables 1 and 2). An NR MCS names a modulation
//!   order and a code rate; there is no TBS index.
//! - **Transport block size** ([`tbs`]): computed by TS 38.214 § 5.1.3.2 from the REs a PRB
//!   offers after DM-RS and overhead ([`PdschConfig`]), the code rate, the modulation and the
//!   layers, then quantised so the block splits into equal LDPC code blocks (TS 38.212
//!   § 5.2.2, base graph by § 7.2.2: [`ldpc_segmentation`]). [`peak_rate_bps`] is TS 38.306
//!   § 4.1.2's approximate peak rate, against which the tests check [`tbs_bits`].
//! - **Block errors** ([`error_model`]): where the LTE model maps the SINR to a mutual
//!   information and reads fitted turbo-code curves (MIESM), the NR model compresses per-PRB
//!   SINRs with EESM ([`effective_sinr`]) and judges each LDPC code block by the
//!   finite-blocklength normal approximation of the MCS's QAM constellation ([`tb_bler`]);
//!   HARQ is incremental redundancy, so a retransmission lowers the code rate instead of only
//!   adding energy. [`mcs_for_sinr`] is BLER-target link adaptation on those curves,
//!   [`cqi_for_sinr`] the CQI a UE reports by TS 38.214 § 5.2.2.1's rule and [`mcs_for_cqi`]
//!   the MCS a scheduler uses for it; [`SinrThresholds`] precomputes either rule's SINR
//!   thresholds so that a decision per slot is a few comparisons.
//!
//! # References
//!
//! - 3GPP TS 38.211 V17 "NR; Physical channels and modulation", § 4.2–4.3 (numerologies,
//!   frame structure), § 7.4.1.1 (PDSCH DM-RS).
//! - 3GPP TS 38.212 V17 "NR; Multiplexing and channel coding", § 5.2.2 (code-block
//!   segmentation), § 5.3.2 (LDPC, Table 5.3.2-1 lifting sizes), § 7.2.2 (base graph).
//! - 3GPP TS 38.214 V17 "NR; Physical layer procedures for data", § 5.1.2.1, § 5.1.3.1,
//!   § 5.1.3.2 (Table 5.1.3.2-1), § 5.2.2.1.
//! - 3GPP TS 38.101-1 V17 / TS 38.101-2 V17 "NR; User Equipment (UE) radio transmission and
//!   reception; Part 1: Range 1 Standalone / Part 2: Range 2 Standalone", Table 5.3.2-1.
//! - 3GPP TS 38.306 V17 "NR; User Equipment (UE) radio access capabilities", § 4.1.2.
//! - The error model's sources (Polyanskiy–Poor–Verdú 2010, Caire–Taricco–Biglieri 1998,
//!   Martinez et al. 2009, Ericsson R1-030999) are cited in [`error_model`].

mod bicm_table;
pub mod error_model;
pub mod numerology;
pub mod tables;
pub mod tbs;

pub use error_model::{
    bicm_capacity, cqi_for_sinr, effective_sinr, mcs_for_cqi, mcs_for_sinr, sinr_for_bler, tb_bler, tb_bler_harq,
    SinrThresholds,
};
pub use numerology::{bandwidths_mhz, max_prbs, FrequencyRange, Numerology};
pub use tables::{cqi_entry, max_mcs, mcs_entry, CqiTable, McsEntry, McsTable};
pub use tbs::{ldpc_lifting, ldpc_segmentation, peak_rate_bps, tbs_bits, LdpcSegmentation, PdschConfig, TBS_TABLE};
