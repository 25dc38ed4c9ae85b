//! What the load targets check of a refused load.

use agentspec_types::LoadError;

/// A failed load has at least one error, and every offset is a character boundary of the text.
pub fn check_error(e: &LoadError, text: &str) {
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
