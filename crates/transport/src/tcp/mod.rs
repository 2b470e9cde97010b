//! TCP endpoints (being written).
