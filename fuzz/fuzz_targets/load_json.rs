//! `load_json`: loading any text as a JSON document never panics, a failed load carries an
//! error located inside the text, and the JSON parser agrees with serde_json on what is JSON.
#![no_main]

use agentspec_types::{Document, serde_json};
use libfuzzer_sys::fuzz_target;

mod common;
use common::check_error;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let loaded = Document::from_json_str(text);
    if let Err(e) = &loaded {
        check_error(e, text);
    }
    // serde_json as the reference RFC 8259 parser. Ours skips a leading byte-order mark and
    // serde_json does not, so it reads the text without it. Left out of the comparison:
    // nesting past serde_json's recursion limit (128; ours is 1024, `too-deep`), and numbers
    // at the edge of the f64 range, which serde_json (no `float_roundtrip`) rounds differently
    // from `str::parse::<f64>`, so either may call a number out of range that the other reads.
    let reference = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<serde_json::Value>(reference) {
        // Not JSON for serde_json: the loader must fail too (with whatever code).
        Err(e) if (e.is_syntax() || e.is_eof()) => {
            let message = e.to_string();
            if !message.starts_with("recursion limit exceeded")
                && !message.starts_with("number out of range")
            {
                assert!(
                    loaded.is_err(),
                    "serde_json rejects the text ({message}) but it loaded"
                );
            }
        }
        // JSON for serde_json: the document may well be invalid Agent Spec, or repeat a key
        // (`duplicate-key`: serde_json keeps the last), but never a `syntax-error`.
        Ok(_) => {
            if let Err(e) = &loaded {
                let syntax = e.diagnostics.iter().find(|d| {
                    d.code == "syntax-error"
                        && !d.message.contains("out of range of a 64-bit float")
                });
                assert!(
                    syntax.is_none(),
                    "serde_json reads the text but the loader says {syntax:?}"
                );
            }
        }
        Err(_) => {}
    }
});
