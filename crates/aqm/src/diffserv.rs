//! DiffServ: a UE's queue split into classes served in strict priority, each class with its
//! own per-queue discipline and byte limit; a packet's class is chosen by the DSCP its flow
//! carries.

use cellshare_core::ScenarioError;
use serde::{Deserialize, Serialize};

use crate::{Aqm, AqmConfig, QueueSite};

/// `cell.aqm = { kind = "diffserv", classes = [...] }`: per-UE DiffServ queues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffServConfig {
    /// The classes in priority order (the first is served first), 1 to 16. A packet goes to
    /// the class listing its flow's `dscp`; packets whose DSCP no class lists go to the last
    /// class.
    pub classes: Vec<DiffServClass>,
}

/// One DiffServ class of a per-UE queue.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DiffServClass {
    /// DSCP values (flows' `dscp`) of this class. Default: none.
    #[serde(default)]
    pub dscp: Vec<u8>,
    /// Byte limit of this class's queue. Default: `cell.rlc_queue_bytes`.
    #[serde(default)]
    pub queue_bytes: Option<u64>,
    #[doc = concat!("The class's discipline (", per_queue_kinds!(), "). Default: tail drop.")]
    #[serde(default)]
    #[schemars(schema_with = "class_aqm_schema")]
    pub aqm: AqmConfig,
}

/// The schema of a class's `aqm`: [`AqmConfig`]'s, described with the kinds the registry
/// lists for a single queue (schemars reads only literal doc comments, so the description
/// built from the registry is set here).
fn class_aqm_schema(gen: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let mut schema = gen.subschema_for::<AqmConfig>().into_object();
    schema.metadata().description = Some(concat!("The class's discipline (", per_queue_kinds!(), "). Default: tail drop.").to_string());
    schemars::schema::Schema::Object(schema)
}

impl DiffServConfig {
    /// Checks the classes and their disciplines; `at` is the key path of the table.
    pub(crate) fn validate(&self, at: &str) -> Result<(), ScenarioError> {
        if self.classes.is_empty() || self.classes.len() > 16 {
            return Err(ScenarioError::new(format!("{at}.classes"), format!("{} classes", self.classes.len()), "1 to 16 classes"));
        }
        let mut seen = [false; 256];
        for (i, c) in self.classes.iter().enumerate() {
            for &v in &c.dscp {
                if std::mem::replace(&mut seen[v as usize], true) {
                    return Err(ScenarioError::new(format!("{at}.classes[{i}].dscp"), v, "each DSCP value in at most one class"));
                }
            }
            if let Some(b) = c.queue_bytes {
                if b < 1500 {
                    return Err(ScenarioError::new(format!("{at}.classes[{i}].queue_bytes"), b, "at least 1500 bytes (one packet)"));
                }
            }
            c.aqm.check(&format!("{at}.classes[{i}].aqm"), true)?;
        }
        Ok(())
    }

    /// The class of each DSCP value: the class listing it, else the last.
    pub fn class_of(&self) -> Vec<u8> {
        let mut class_of = vec![(self.classes.len() - 1) as u8; 256];
        for (i, c) in self.classes.iter().enumerate() {
            for &v in &c.dscp {
                class_of[v as usize] = i as u8;
            }
        }
        class_of
    }

    /// Each class's discipline for UE `site.ue`'s queue whose byte limit is `bytes` (a
    /// class's own `queue_bytes` when given); class `i` draws from the site of class `i`.
    pub fn build(&self, bytes: u64, site: QueueSite) -> Vec<Aqm> {
        self.classes
            .iter()
            .enumerate()
            .map(|(i, c)| c.aqm.build(c.queue_bytes.unwrap_or(bytes), &QueueSite { class: i as u64, ..site }))
            .collect()
    }

    /// Packets the classes hold at their limits together (see
    /// [`AqmConfig::packets_at_limit`]).
    pub fn packets_at_limit(&self, bytes: u64, packet_bytes: u64) -> u64 {
        self.classes.iter().map(|c| c.aqm.packets_at_limit(c.queue_bytes.unwrap_or(bytes), packet_bytes)).fold(0u64, u64::saturating_add)
    }
}
