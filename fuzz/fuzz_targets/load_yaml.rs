//! `load_yaml`: loading any text as a YAML document never panics (nor runs out of stack or
//! memory: aliases, nesting), and a failed load carries an error located inside the text.
#![no_main]

use agentspec_types::{Document, LoadError};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Document::from_yaml_str(text) {
        check_error(&e, text);
    }
});

/// A failed load has at least one error, and every offset is a character boundary of the text.
fn check_error(e: &LoadError, text: &str) {
    assert!(
        e.errors().next().is_some(),
        "a LoadError without errors: {e:?}"
    );
    for d in &e.diagnostics {
        if let Some(at) = d.offset {
            assert!(
                text.is_char_boundary(at),
                "offset {at} is not in the text: {d:?}"
            );
        }
    }
    let _ = e.to_string();
}
