//! `round_trip`: a document that loads (JSON when the input starts with `{`, else YAML) writes
//! as JSON and YAML texts that load back to an equal document and write again to the same
//! text; validating it never panics.
#![no_main]

use agentspec_types::{Document, Format, Output, WriteOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let format = if data.first() == Some(&b'{') {
        Format::Json
    } else {
        Format::Yaml
    };
    let Ok(doc) = Document::from_str_as(text, format) else {
        return;
    };
    let _ = doc.validate();
    // Secrets included: by default a sensitive value is written as its `<id>.<field>`
    // placeholder, which loads back as a placeholder and not as the value (redaction, by
    // design). With them the text holds all the document does, so the round trip is exact.
    let all = WriteOptions::new().include_secrets(true);
    let outputs = [
        (Output::JsonPretty, Format::Json),
        (Output::Yaml, Format::Yaml),
        (Output::JsonCompact, Format::Json),
    ];
    for (output, format) in outputs {
        let written = doc.to_string_with(output, &all);
        let again = Document::from_str_as(&written, format)
            .unwrap_or_else(|e| panic!("{output:?} output does not load: {e}\n{}", head(&written)));
        assert_eq!(
            again,
            doc,
            "{output:?} output loads as another document:\n{}",
            head(&written)
        );
        let twice = again.to_string_with(output, &all);
        assert_eq!(
            twice, written,
            "{output:?} output changes when written again"
        );
    }
    // The default, redacted outputs are not equal to the document (placeholders for secrets)
    // but are stable: loaded and written again, they give the same text.
    for (written, format) in [
        (doc.to_json_pretty(), Format::Json),
        (doc.to_yaml(), Format::Yaml),
    ] {
        let again = Document::from_str_as(&written, format).unwrap_or_else(|e| {
            panic!("redacted {format:?} does not load: {e}\n{}", head(&written))
        });
        assert_eq!(
            again.to_string_as(format),
            written,
            "redacted {format:?} changes when written again"
        );
    }
});

/// The start of a long text, for messages.
fn head(text: &str) -> &str {
    let mut end = text.len().min(4000);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
