//! `load_yaml`: loading any text as a YAML document never panics (nor runs out of stack or
//! memory: aliases, nesting), and a failed load carries an error located inside the text.
#![no_main]

use agentspec_types::Document;
use libfuzzer_sys::fuzz_target;

mod common;
use common::check_error;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Document::from_yaml_str(text) {
        check_error(&e, text);
    }
});
