//! The code agentspec-build generates, compiled: one module per document.

include!(concat!(env!("OUT_DIR"), "/spec_first.rs"));

/// The disaggregated example in JSON: its main document, with its components file.
pub mod disaggregated_json {
    include!(concat!(
        env!("OUT_DIR"),
        "/spec_first_disaggregated_json.rs"
    ));
}

/// The disaggregated example in YAML.
pub mod disaggregated_yaml {
    include!(concat!(
        env!("OUT_DIR"),
        "/spec_first_disaggregated_yaml.rs"
    ));
}

/// The plugin example, its plugin components kept as read.
pub mod plugins {
    include!(concat!(env!("OUT_DIR"), "/spec_first_plugins.rs"));
}

/// The upstream configurations whose code is generated above, one path a line.
pub const UPSTREAM_GENERATED: &str =
    include_str!(concat!(env!("OUT_DIR"), "/upstream_generated.txt"));
/// The upstream configurations agentspec refuses, each with its first error's code.
pub const UPSTREAM_REFUSED: &str = include_str!(concat!(env!("OUT_DIR"), "/upstream_refused.txt"));

pub mod weather;
