//! The scenario schema (JSON Schema, generated from the scenario types and their doc
//! comments), from which the scenario reference is rendered.

/// JSON Schema of [`crate::Scenario`].
pub fn scenario_schema() -> serde_json::Value {
    let schema = schemars::schema_for!(crate::Scenario);
    serde_json::to_value(schema).expect("schema serializes")
}
