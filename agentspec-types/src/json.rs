//! JSON: an iterative parser into the located source [`tree`](crate::tree), and a writer
//! that produces pyagentspec's layout byte for byte.

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::sink::Sink;
use crate::tree::{Entry, KeySet, MAX_DEPTH, Node, Value};

/// A container being filled while parsing.
enum Open {
    Array(u32, Vec<Node>),
    Object(u32, Vec<Entry>, Option<(String, u32)>, KeySet),
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    stack: Vec<Open>,
    depth: usize,
}

/// Parses a JSON document (RFC 8259; a leading byte-order mark is skipped).
///
/// Errors: `syntax-error`, `duplicate-key`, and `too-deep` past [`MAX_DEPTH`] levels. The
/// diagnostics carry byte offsets; fill lines and columns with [`Diagnostic::locate`].
pub fn parse_json(src: &str) -> Result<Node, Vec<Diagnostic>> {
    parse_json_with_depth(src).map(|(node, _)| node)
}

/// [`parse_json`], also returning the deepest nesting of arrays and objects.
pub(crate) fn parse_json_with_depth(src: &str) -> Result<(Node, usize), Vec<Diagnostic>> {
    let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut parser = Parser {
        src,
        bytes: src.as_bytes(),
        pos: start,
        stack: Vec::new(),
        depth: 0,
    };
    let node = parser.document().map_err(|d| vec![d])?;
    Ok((node, parser.depth))
}

impl Parser<'_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for open in &self.stack {
            match open {
                Open::Array(_, items) => push_pointer_token(&mut out, &items.len().to_string()),
                Open::Object(_, _, Some((key, _)), _) => push_pointer_token(&mut out, key),
                Open::Object(..) => {}
            }
        }
        out
    }

    fn error(&self, message: impl Into<String>, at: usize) -> Diagnostic {
        Diagnostic::error("syntax-error", message, self.pointer(), Some(at))
    }

    fn found(&self) -> String {
        match self.src[self.pos..].chars().next() {
            None => "the end of the input".to_owned(),
            Some(c) if c.is_control() => format!("{c:?}"),
            Some(c) => format!("`{c}`"),
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn document(&mut self) -> Result<Node, Diagnostic> {
        let root = self.value()?;
        self.skip_ws();
        if self.pos < self.bytes.len() {
            return Err(self.error(
                format!(
                    "trailing characters after the document: found {}",
                    self.found()
                ),
                self.pos,
            ));
        }
        Ok(root)
    }

    /// Parses one value; containers are handled with the explicit stack.
    fn value(&mut self) -> Result<Node, Diagnostic> {
        loop {
            self.skip_ws();
            let offset = self.pos as u32;
            let scalar = match self.bytes.get(self.pos) {
                Some(b'{') | Some(b'[') => {
                    if self.stack.len() >= MAX_DEPTH {
                        let d = Diagnostic::error(
                            "too-deep",
                            format!(
                                "the document nests arrays and objects more than {MAX_DEPTH} levels deep"
                            ),
                            self.pointer(),
                            Some(self.pos),
                        );
                        return Err(d);
                    }
                    let is_object = self.bytes[self.pos] == b'{';
                    self.pos += 1;
                    self.skip_ws();
                    if is_object {
                        if self.bytes.get(self.pos) == Some(&b'}') {
                            self.pos += 1;
                            Node {
                                offset,
                                value: Value::Object(Vec::new()),
                            }
                        } else {
                            self.stack.push(Open::Object(
                                offset,
                                Vec::new(),
                                None,
                                KeySet::default(),
                            ));
                            self.depth = self.depth.max(self.stack.len());
                            self.key()?;
                            continue;
                        }
                    } else if self.bytes.get(self.pos) == Some(&b']') {
                        self.pos += 1;
                        Node {
                            offset,
                            value: Value::Array(Vec::new()),
                        }
                    } else {
                        self.stack.push(Open::Array(offset, Vec::new()));
                        self.depth = self.depth.max(self.stack.len());
                        continue;
                    }
                }
                Some(b'"') => Node {
                    offset,
                    value: Value::Str(self.string()?),
                },
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => Node {
                    offset,
                    value: self.number()?,
                },
                _ => {
                    return Err(self.error(
                        format!("expected a value, found {}", self.found()),
                        self.pos,
                    ));
                }
            };
            // A complete value: attach it to its container, closing containers as they end.
            let mut done = scalar;
            loop {
                let Some(open) = self.stack.last_mut() else {
                    return Ok(done);
                };
                let is_array = match open {
                    Open::Array(_, items) => {
                        items.push(done);
                        true
                    }
                    Open::Object(_, entries, pending, _) => {
                        let (key, key_offset) =
                            pending.take().expect("a key precedes every object value");
                        entries.push(Entry {
                            key,
                            key_offset,
                            value: done,
                        });
                        false
                    }
                };
                self.skip_ws();
                match (self.bytes.get(self.pos), is_array) {
                    (Some(b','), true) => {
                        self.pos += 1;
                        break;
                    }
                    (Some(b','), false) => {
                        self.pos += 1;
                        self.skip_ws();
                        self.key()?;
                        break;
                    }
                    (Some(b']'), true) | (Some(b'}'), false) => {
                        self.pos += 1;
                        done = match self.stack.pop().expect("checked above") {
                            Open::Array(offset, items) => Node {
                                offset,
                                value: Value::Array(items),
                            },
                            Open::Object(offset, entries, _, _) => Node {
                                offset,
                                value: Value::Object(entries),
                            },
                        };
                    }
                    (_, true) => {
                        return Err(self.error(
                            format!(
                                "expected `,` or `]` after an array item, found {}",
                                self.found()
                            ),
                            self.pos,
                        ));
                    }
                    (_, false) => {
                        return Err(self.error(
                            format!(
                                "expected `,` or `}}` after an object entry, found {}",
                                self.found()
                            ),
                            self.pos,
                        ));
                    }
                }
            }
        }
    }

    /// Reads `"key":` of the innermost object and checks it is not a duplicate.
    fn key(&mut self) -> Result<(), Diagnostic> {
        let at = self.pos;
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.error(
                format!("expected a string key, found {}", self.found()),
                self.pos,
            ));
        }
        let key = self.string()?;
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.error(
                format!("expected `:` after an object key, found {}", self.found()),
                self.pos,
            ));
        }
        self.pos += 1;
        let Some(Open::Object(_, entries, pending, keys)) = self.stack.last_mut() else {
            unreachable!("keys are read inside objects")
        };
        if keys.contains(entries, &key) {
            let message = format!("the key `{key}` appears twice in the same object");
            *pending = Some((key, at as u32));
            return Err(Diagnostic::error(
                "duplicate-key",
                message,
                self.pointer(),
                Some(at),
            ));
        }
        *pending = Some((key, at as u32));
        Ok(())
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Node, Diagnostic> {
        let offset = self.pos;
        if self.src[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(Node {
                offset: offset as u32,
                value,
            })
        } else {
            Err(self.error(format!("expected a value, found {}", self.found()), offset))
        }
    }

    fn number(&mut self) -> Result<Value, Diagnostic> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.bytes.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - s
        };
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = digits(self);
        if n == 0 {
            return Err(self.error("expected a digit in a number", self.pos));
        }
        if n > 1 && self.bytes[int_start] == b'0' {
            return Err(self.error(
                "a number cannot start with `0` followed by digits",
                int_start,
            ));
        }
        let mut float = false;
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            float = true;
            if digits(self) == 0 {
                return Err(self.error("expected a digit after the decimal point", self.pos));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            float = true;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.error("expected a digit in the exponent", self.pos));
            }
        }
        let text = &self.src[start..self.pos];
        if !float {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Value::Int(i));
            }
            if let Ok(u) = text.parse::<u64>() {
                return Ok(Value::UInt(u));
            }
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(self.error(format!("the number {text} is out of range"), start)),
        }
    }

    fn string(&mut self) -> Result<String, Diagnostic> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes.
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'"' => {
                    let s = self.src[start..self.pos].to_owned();
                    self.pos += 1;
                    return Ok(s);
                }
                b'\\' => break,
                0..=0x1f => {
                    return Err(self.error(
                        "a control character must be escaped inside a string",
                        self.pos,
                    ));
                }
                _ => self.pos += 1,
            }
        }
        let mut out = self.src[start..self.pos].to_owned();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.error(
                    "unterminated string (the input ends before its closing `\"`)",
                    open,
                ));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    let at = self.pos;
                    self.pos += 1;
                    let c = match self.bytes.get(self.pos) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.pos += 1;
                            let c = self.unicode_escape(at)?;
                            out.push(c);
                            continue;
                        }
                        _ => {
                            return Err(self.error(
                                format!(
                                    "invalid escape `\\{}` in a string",
                                    self.found().trim_matches('`')
                                ),
                                at,
                            ));
                        }
                    };
                    self.pos += 1;
                    out.push(c);
                }
                0..=0x1f => {
                    return Err(self.error(
                        "a control character must be escaped inside a string",
                        self.pos,
                    ));
                }
                _ => {
                    let run = self.pos;
                    while self
                        .bytes
                        .get(self.pos)
                        .is_some_and(|&b| b != b'"' && b != b'\\' && b >= 0x20)
                    {
                        self.pos += 1;
                    }
                    out.push_str(&self.src[run..self.pos]);
                }
            }
        }
    }

    fn hex4(&mut self, at: usize) -> Result<u32, Diagnostic> {
        let text = self
            .src
            .get(self.pos..self.pos + 4)
            .filter(|t| t.bytes().all(|b| b.is_ascii_hexdigit()));
        let text = text
            .ok_or_else(|| self.error("`\\u` must be followed by four hexadecimal digits", at))?;
        self.pos += 4;
        Ok(u32::from_str_radix(text, 16).expect("checked hexadecimal"))
    }

    fn unicode_escape(&mut self, at: usize) -> Result<char, Diagnostic> {
        let first = self.hex4(at)?;
        let code = match first {
            0xD800..=0xDBFF => {
                if !self.src[self.pos..].starts_with("\\u") {
                    return Err(self.error("a lone UTF-16 surrogate in a `\\u` escape", at));
                }
                self.pos += 2;
                let second = self.hex4(at)?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return Err(self.error("a lone UTF-16 surrogate in a `\\u` escape", at));
                }
                0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            }
            0xDC00..=0xDFFF => {
                return Err(self.error("a lone UTF-16 surrogate in a `\\u` escape", at));
            }
            c => c,
        };
        char::from_u32(code).ok_or_else(|| self.error("an invalid `\\u` escape", at))
    }
}

/// Python's `repr(float)`: shortest round-trip digits, `60.0` for integral values,
/// scientific notation (`1e-05`, `1.5e+16`) below 1e-4 and from 1e16 on.
pub fn python_float(v: f64) -> String {
    if v.is_nan() {
        return "NaN".to_owned();
    }
    if v.is_infinite() {
        return if v > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0.0" } else { "0.0" }.to_owned();
    }
    let sci = format!("{v:e}");
    let (mantissa, exponent) = sci.split_once('e').expect("`{:e}` always has an exponent");
    let exponent: i32 = exponent.parse().expect("`{:e}` writes an integer exponent");
    let (sign, mantissa) = mantissa
        .strip_prefix('-')
        .map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            format!("0.{}{digits}", "0".repeat((-point) as usize))
        } else if point as usize >= digits.len() {
            format!("{digits}{}.0", "0".repeat(point as usize - digits.len()))
        } else {
            format!(
                "{}.{}",
                &digits[..point as usize],
                &digits[point as usize..]
            )
        };
        format!("{sign}{body}")
    } else {
        let mantissa = if digits.len() == 1 {
            digits
        } else {
            format!("{}.{}", &digits[..1], &digits[1..])
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{mantissa}e{exp_sign}{:02}", exponent.abs())
    }
}

/// Writes JSON: pretty (Python's `json.dumps(indent=2)`, ASCII-only, with a final
/// newline) or compact (one line, UTF-8 kept).
#[derive(Debug)]
pub struct JsonWriter {
    out: String,
    pretty: bool,
    /// Per open container: whether it has an item yet.
    open: Vec<bool>,
    after_key: bool,
}

impl JsonWriter {
    /// pyagentspec's layout: `json.dumps(obj, indent=2)` and a newline.
    pub fn pretty() -> Self {
        JsonWriter {
            out: String::new(),
            pretty: true,
            open: Vec::new(),
            after_key: false,
        }
    }

    /// One line, no spaces, UTF-8 as is.
    pub fn compact() -> Self {
        JsonWriter {
            pretty: false,
            ..JsonWriter::pretty()
        }
    }

    /// The text written.
    pub fn finish(mut self) -> String {
        if self.pretty {
            self.out.push('\n');
        }
        self.out
    }

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.open.len() {
            self.out.push_str("  ");
        }
    }

    /// Separator and indentation before a value (or a key).
    fn before(&mut self) {
        if self.after_key {
            self.after_key = false;
            return;
        }
        if let Some(has_items) = self.open.last_mut() {
            let first = !*has_items;
            *has_items = true;
            if !first {
                self.out.push(',');
            }
            if self.pretty {
                self.newline();
            }
        }
    }

    fn begin(&mut self, c: char) {
        self.before();
        self.out.push(c);
        self.open.push(false);
    }

    fn end(&mut self, c: char) {
        let had_items = self.open.pop().unwrap_or(false);
        if had_items && self.pretty {
            self.newline();
        }
        self.out.push(c);
    }

    fn string(&mut self, s: &str) {
        let out = &mut self.out;
        out.push('"');
        let mut run = 0;
        for (i, c) in s.char_indices() {
            let plain = matches!(c, ' '..='~') && c != '"' && c != '\\'
                || (!self.pretty && c as u32 >= 0x80);
            if plain {
                continue;
            }
            out.push_str(&s[run..i]);
            run = i + c.len_utf8();
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c => {
                    let mut units = [0u16; 2];
                    for unit in c.encode_utf16(&mut units) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
            }
        }
        out.push_str(&s[run..]);
        out.push('"');
    }
}

impl Sink for JsonWriter {
    fn begin_object(&mut self) {
        self.begin('{');
    }
    fn key(&mut self, key: &str) {
        self.before();
        self.string(key);
        self.out.push_str(if self.pretty { ": " } else { ":" });
        self.after_key = true;
    }
    fn end_object(&mut self) {
        self.end('}');
    }
    fn begin_array(&mut self) {
        self.begin('[');
    }
    fn end_array(&mut self) {
        self.end(']');
    }
    fn null(&mut self) {
        self.before();
        self.out.push_str("null");
    }
    fn bool(&mut self, value: bool) {
        self.before();
        self.out.push_str(if value { "true" } else { "false" });
    }
    fn i64(&mut self, value: i64) {
        self.before();
        self.out.push_str(itoa(value as i128).as_str());
    }
    fn u64(&mut self, value: u64) {
        self.before();
        self.out.push_str(itoa(value as i128).as_str());
    }
    fn f64(&mut self, value: f64) {
        self.before();
        self.out.push_str(&python_float(value));
    }
    fn str(&mut self, value: &str) {
        self.before();
        self.string(value);
    }
}

fn itoa(v: i128) -> String {
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(src: &str) -> (&'static str, usize, String) {
        let d = parse_json(src).unwrap_err().remove(0);
        (d.code, d.offset.unwrap(), d.pointer)
    }

    #[test]
    fn formats_floats_as_python_repr() {
        let cases = [
            (0.0, "0.0"),
            (60.0, "60.0"),
            (0.1, "0.1"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1e16, "1e+16"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (-2.5, "-2.5"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.5e-7, "2.5e-07"),
            (1234.5, "1234.5"),
            (9999999999999998.0, "9999999999999998.0"),
        ];
        for (v, text) in cases {
            assert_eq!(python_float(v), text, "{v}");
        }
    }

    #[test]
    fn parses_with_offsets() {
        let node = parse_json(r#" {"a": [1, -2.5e3, "x\u00e9\ud83d\ude00"], "b": null}"#).unwrap();
        let Value::Object(entries) = node.value else {
            panic!()
        };
        assert_eq!(node.offset, 1);
        assert_eq!(
            (
                entries[0].key.as_str(),
                entries[0].key_offset,
                entries[0].value.offset
            ),
            ("a", 2, 7)
        );
        let Value::Array(items) = &entries[0].value.value else {
            panic!()
        };
        assert_eq!(items[0].value, Value::Int(1));
        assert_eq!(items[1].value, Value::Float(-2500.0));
        assert_eq!(items[2].value, Value::Str("xé😀".into()));
        assert_eq!(
            parse_json("18446744073709551615").unwrap().value,
            Value::UInt(u64::MAX)
        );
    }

    #[test]
    fn reports_syntax_errors_at_their_offset() {
        assert_eq!(err(r#"{"a": 1,}"#), ("syntax-error", 8, "".into()));
        assert_eq!(err(r#"{"a": [1 2]}"#), ("syntax-error", 9, "/a/1".into()));
        assert_eq!(err(r#"{"a": "x\q"}"#), ("syntax-error", 8, "/a".into()));
        assert_eq!(err(r#"{"a": 1} x"#), ("syntax-error", 9, "".into()));
        assert_eq!(err(r#"{"a": tru}"#), ("syntax-error", 6, "/a".into()));
        assert_eq!(err(r#"{"a": 01}"#), ("syntax-error", 6, "/a".into()));
        assert_eq!(err("{\"a\": \"\n\"}"), ("syntax-error", 7, "/a".into()));
        assert_eq!(err(r#"{"a": "\ud800"}"#), ("syntax-error", 7, "/a".into()));
        assert_eq!(err(r#"{"a": "abc"#), ("syntax-error", 6, "/a".into()));
        assert_eq!(err(""), ("syntax-error", 0, "".into()));
    }

    #[test]
    fn rejects_duplicate_keys_in_large_objects() {
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let ok = format!("{{{}}}", keys.join(", "));
        assert!(parse_json(&ok).is_ok());
        let dup = format!("{{{}, \"k7\": 0}}", keys.join(", "));
        let d = parse_json(&dup).unwrap_err().remove(0);
        assert_eq!((d.code, d.pointer.as_str()), ("duplicate-key", "/k7"));
    }

    #[test]
    fn rejects_duplicate_keys() {
        assert_eq!(
            err(r#"{"x": {"a": 1, "a": 2}}"#),
            ("duplicate-key", 15, "/x/a".into())
        );
    }

    #[test]
    fn reports_the_nesting_depth() {
        let (_, depth) = parse_json_with_depth(r#"[[1], {"a": {"b": 1}}, 2]"#).unwrap();
        assert_eq!(depth, 3);
        assert_eq!(parse_json_with_depth("7").unwrap().1, 0);
    }

    #[test]
    fn limits_depth_without_recursion() {
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_DEPTH + 100),
            "]".repeat(MAX_DEPTH + 100)
        );
        assert_eq!(err(&deep).0, "too-deep");
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_json(&ok).is_ok());
    }

    #[test]
    fn writes_python_json_dumps_layout() {
        let mut w = JsonWriter::pretty();
        w.begin_object();
        w.key("a");
        w.begin_array();
        w.i64(1);
        w.f64(2.0);
        w.begin_object();
        w.end_object();
        w.begin_array();
        w.end_array();
        w.end_array();
        w.key("b\"é");
        w.str("tab\there 😀");
        w.key("c");
        w.null();
        w.end_object();
        let expected = "{\n  \"a\": [\n    1,\n    2.0,\n    {},\n    []\n  ],\n  \"b\\\"\\u00e9\": \"tab\\there \\ud83d\\ude00\",\n  \"c\": null\n}\n";
        assert_eq!(w.finish(), expected);
    }

    #[test]
    fn compact_keeps_utf8() {
        let mut w = JsonWriter::compact();
        w.begin_object();
        w.key("k");
        w.begin_array();
        w.str("é");
        w.bool(true);
        w.end_array();
        w.end_object();
        assert_eq!(w.finish(), r#"{"k":["é",true]}"#);
    }
}
