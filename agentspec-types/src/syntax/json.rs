//! JSON: an iterative parser into the located source [`tree`](crate::syntax::tree), and a writer
//! that produces pyagentspec's layout byte for byte.

use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, push_pointer_token};
use crate::syntax::sink::Sink;
use crate::syntax::tree::{Entry, Key, MAX_DEPTH, NON_FINITE, Node, Value};

/// A container being filled while parsing: its offset, and where its items (or entries)
/// start in the parser's shared list of items (or entries). A container's items are moved
/// into a list of their own, of their exact size, when it closes: no list grows item by item.
enum Open {
    Array(u32, usize),
    Object(u32, usize, Option<(Key, u32)>, KeySet),
}

/// Detects duplicate keys of one object: a linear scan while it is small, a hash set of its
/// keys once it grows (so objects with many keys stay linear).
#[derive(Default)]
pub(crate) struct KeySet {
    set: Option<foldhash::HashSet<Key>>,
}

impl KeySet {
    /// Objects up to this many entries are scanned linearly.
    const SCAN: usize = 16;

    /// Whether `key` is already a key of `entries` (the entries read so far); records it.
    pub(crate) fn is_duplicate(&mut self, entries: &[Entry], key: &str) -> bool {
        if let Some(set) = &mut self.set {
            return !set.insert(Key::new(key));
        }
        if entries.iter().any(|e| e.key == key) {
            return true;
        }
        if entries.len() >= Self::SCAN {
            let mut set: foldhash::HashSet<Key> = entries.iter().map(|e| e.key.clone()).collect();
            set.insert(Key::new(key));
            self.set = Some(set);
        }
        false
    }
}

struct Parser<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    stack: Vec<Open>,
    /// The items of the open arrays, innermost last.
    items: Vec<Node>,
    /// The entries of the open objects, innermost last.
    entries: Vec<Entry>,
    depth: usize,
    warnings: Vec<Diagnostic>,
}

/// Parses a JSON document (RFC 8259; a leading byte-order mark is skipped).
///
/// Errors: `syntax-error`, `duplicate-key`, and `too-deep` past [`MAX_DEPTH`] levels. The
/// diagnostics carry byte offsets; fill lines and columns with [`Diagnostic::locate`].
pub fn parse_json(src: &str) -> Result<Node, Vec<Diagnostic>> {
    parse_json_with_depth(src).map(|(node, ..)| node)
}

/// [`parse_json`], also returning the deepest nesting of arrays and objects, and the
/// warnings (`imprecise-integer`).
pub(crate) fn parse_json_with_depth(
    src: &str,
) -> Result<(Node, usize, Vec<Diagnostic>), Vec<Diagnostic>> {
    let start = if src.starts_with('\u{feff}') { 3 } else { 0 };
    let mut parser = Parser {
        src,
        bytes: src.as_bytes(),
        pos: start,
        stack: Vec::new(),
        items: Vec::new(),
        entries: Vec::new(),
        depth: 0,
        warnings: Vec::new(),
    };
    let node = parser.document().map_err(|d| vec![d])?;
    Ok((node, parser.depth, parser.warnings))
}

impl<'a> Parser<'a> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        for (i, open) in self.stack.iter().enumerate() {
            match open {
                Open::Array(_, start) => {
                    // its items end where those of the next array open inside it start
                    let end = self.stack[i + 1..]
                        .iter()
                        .find_map(|o| match o {
                            Open::Array(_, s) => Some(*s),
                            Open::Object(..) => None,
                        })
                        .unwrap_or(self.items.len());
                    push_pointer_token(&mut out, &(end - start).to_string());
                }
                Open::Object(_, _, Some((key, _)), _) => push_pointer_token(&mut out, key),
                Open::Object(..) => {}
            }
        }
        out
    }

    fn error(&self, message: impl Into<String>, at: usize) -> Diagnostic {
        Diagnostic::error("syntax-error", message, self.pointer(), Some(at))
    }

    /// A syntax error at the current position: `expected {what}, found …`.
    fn expected(&self, what: &str) -> Diagnostic {
        let message = if self.pos >= self.bytes.len() {
            format!("unexpected end of input: expected {what}")
        } else {
            format!("expected {what}, found {}", self.found())
        };
        self.error(message, self.pos)
    }

    fn found(&self) -> String {
        match self
            .src
            .get(self.pos..)
            .and_then(|rest| rest.chars().next())
        {
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
                Some(b'{' | b'[') => match self.open(offset)? {
                    Some(empty) => empty,
                    None => continue,
                },
                Some(b'"') => Node {
                    offset,
                    value: Value::Str(self.string()?),
                },
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') if !self.non_finite() => Node {
                    offset,
                    value: self.number()?,
                },
                Some(b'N' | b'I' | b'-') if self.non_finite() => {
                    return Err(Diagnostic::error(
                        "non-finite-number",
                        NON_FINITE,
                        self.pointer(),
                        Some(self.pos),
                    ));
                }
                _ => return Err(self.expected("a value")),
            };
            // A complete value: attach it to its container, closing containers as they end.
            let mut done = scalar;
            loop {
                let Some(open) = self.stack.last_mut() else {
                    return Ok(done);
                };
                let is_array = match open {
                    Open::Array(..) => {
                        self.items.push(done);
                        true
                    }
                    Open::Object(_, _, pending, _) => {
                        // `key()` always leaves the pending key before the value is read.
                        let (key, key_offset) = pending.take().unwrap_or_default();
                        self.entries.push(Entry {
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
                        done = match self.stack.pop() {
                            Some(Open::Array(offset, start)) => Node {
                                offset,
                                value: Value::Array(self.items.drain(start..).collect()),
                            },
                            Some(Open::Object(offset, start, ..)) => Node {
                                offset,
                                value: Value::Object(self.entries.drain(start..).collect()),
                            },
                            // `last_mut` just found this container.
                            None => return Err(self.error("unbalanced brackets", self.pos)),
                        };
                    }
                    (_, true) => return Err(self.expected("`,` or `]` after an array item")),
                    (_, false) => return Err(self.expected("`,` or `}` after an object entry")),
                }
            }
        }
    }

    /// Reads `{` or `[`: an empty container, or `None` when one was opened on the stack
    /// (and, for an object, its first key read).
    fn open(&mut self, offset: u32) -> Result<Option<Node>, Diagnostic> {
        if self.stack.len() >= MAX_DEPTH {
            let message =
                format!("the document nests arrays and objects more than {MAX_DEPTH} levels deep");
            return Err(Diagnostic::error(
                "too-deep",
                message,
                self.pointer(),
                Some(self.pos),
            ));
        }
        let is_object = self.bytes.get(self.pos) == Some(&b'{');
        self.pos += 1;
        self.skip_ws();
        let (close, value) = if is_object {
            (b'}', Value::Object(Vec::new()))
        } else {
            (b']', Value::Array(Vec::new()))
        };
        if self.bytes.get(self.pos) == Some(&close) {
            self.pos += 1;
            return Ok(Some(Node { offset, value }));
        }
        if is_object {
            let open = Open::Object(offset, self.entries.len(), None, KeySet::default());
            self.stack.push(open);
            self.depth = self.depth.max(self.stack.len());
            self.key()?;
        } else {
            self.stack.push(Open::Array(offset, self.items.len()));
            self.depth = self.depth.max(self.stack.len());
        }
        Ok(None)
    }

    /// Reads `"key":` of the innermost object and checks it is not a duplicate.
    fn key(&mut self) -> Result<(), Diagnostic> {
        let at = self.pos;
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.expected("a string key"));
        }
        let key = match self.text()? {
            std::borrow::Cow::Borrowed(s) => Key::new(s),
            std::borrow::Cow::Owned(s) => Key::from(s),
        };
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.expected("`:` after an object key"));
        }
        self.pos += 1;
        let Some(Open::Object(_, start, pending, keys)) = self.stack.last_mut() else {
            return Err(self.error("expected a value, found an object key", at));
        };
        if keys.is_duplicate(&self.entries[*start..], &key) {
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

    /// Whether `NaN`, `Infinity` or `-Infinity` (what Python's `json` writes for non-finite
    /// floats) starts here.
    fn non_finite(&self) -> bool {
        let rest = &self.src[self.pos..];
        rest.starts_with("NaN") || rest.starts_with("Infinity") || rest.starts_with("-Infinity")
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
            let rest = self.src.get(self.pos..).unwrap_or_default();
            let word_end = rest
                .find(|c: char| !c.is_ascii_alphanumeric())
                .unwrap_or(rest.len())
                .min(24);
            // a word the length of a misspelt literal is repeated; of a longer one (an
            // unquoted value, which may be a secret) only the first character
            let found = match rest.get(..word_end).unwrap_or_default() {
                w if w.len() <= 5 => w.to_owned(),
                w => format!("{}…", &w[..1]),
            };
            Err(self.error(
                format!("expected a value (`{word}`?), found `{found}`"),
                offset,
            ))
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
            self.warnings
                .push(imprecise_integer(text.len(), self.pointer(), start));
        }
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(self.error(
                format!(
                    "the number ({} characters) is out of range of a 64-bit float",
                    text.len()
                ),
                start,
            )),
        }
    }

    fn string(&mut self) -> Result<String, Diagnostic> {
        self.text().map(std::borrow::Cow::into_owned)
    }

    /// A string: a slice of the source when it has no escapes.
    fn text(&mut self) -> Result<std::borrow::Cow<'a, str>, Diagnostic> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes.
        while let Some(&b) = self.bytes.get(self.pos) {
            match b {
                b'"' => {
                    let s = &self.src[start..self.pos];
                    self.pos += 1;
                    return Ok(std::borrow::Cow::Borrowed(s));
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
                    "unexpected end of input: unterminated string (it has no closing `\"`)",
                    open,
                ));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(std::borrow::Cow::Owned(out));
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
                        None => {
                            return Err(self
                                .error("unexpected end of input: unterminated string", self.pos));
                        }
                        Some(_) => {
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
        let code = text.and_then(|t| u32::from_str_radix(t, 16).ok());
        let code = code
            .ok_or_else(|| self.error("`\\u` must be followed by four hexadecimal digits", at))?;
        self.pos += 4;
        Ok(code)
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

/// The warning for an integer literal beyond 64 bits, read as the nearest float.
pub(crate) fn imprecise_integer(len: usize, pointer: String, at: usize) -> Diagnostic {
    // the digits are not repeated: the value may be a secret
    let message = format!(
        "an integer of {len} characters, beyond 64 bits: it is read, and written back, as the \
         nearest float, losing digits (pyagentspec keeps every digit); write it as a string to \
         keep it exact"
    );
    Diagnostic::warning("imprecise-integer", message, pointer, Some(at))
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

    /// The writer with room for `bytes` of text.
    pub fn with_capacity(mut self, bytes: usize) -> Self {
        self.out.reserve(bytes);
        self
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
            // Pretty is `ensure_ascii=True` (escape all but printable ASCII); compact
            // is `ensure_ascii=False` (escape only `"`, `\\` and C0 controls).
            let plain = c != '"'
                && c != '\\'
                && if self.pretty {
                    matches!(c, ' '..='~')
                } else {
                    c >= ' '
                };
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
                        // Writing into a `String` cannot fail.
                        let _ = write!(out, "\\u{unit:04x}");
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
        if !value.is_finite() {
            // JSON has no such number: `null`, as serde_json writes it; validation reports
            // it (`non-finite-number`), and only a document built in code can hold one
            self.out.push_str("null");
            return;
        }
        self.out.push_str(&python_float(value));
    }
    fn str(&mut self, value: &str) {
        self.before();
        self.string(value);
    }
}

/// A [`JsonWriter`] that hands its text on in pieces of about [`JsonPieces::PIECE`] bytes as
/// it writes, so that the whole text is never held (what a digest or a file needs of it).
pub(crate) struct JsonPieces<F> {
    writer: JsonWriter,
    out: F,
}

impl<F: FnMut(&str)> JsonPieces<F> {
    /// About the bytes of a piece: small enough to stay in the nearest caches.
    pub(crate) const PIECE: usize = 16 * 1024;

    pub(crate) fn new(writer: JsonWriter, out: F) -> Self {
        JsonPieces {
            writer: writer.with_capacity(Self::PIECE + Self::PIECE / 4),
            out,
        }
    }

    fn hand_on(&mut self) {
        if self.writer.out.len() >= Self::PIECE {
            (self.out)(&self.writer.out);
            self.writer.out.clear();
        }
    }

    /// Hands on the rest of the text.
    pub(crate) fn finish(mut self) {
        let rest = self.writer.finish();
        (self.out)(&rest);
    }
}

impl<F: FnMut(&str)> Sink for JsonPieces<F> {
    fn begin_object(&mut self) {
        self.writer.begin_object();
    }
    fn key(&mut self, key: &str) {
        self.writer.key(key);
    }
    fn end_object(&mut self) {
        self.writer.end_object();
        self.hand_on();
    }
    fn begin_array(&mut self) {
        self.writer.begin_array();
    }
    fn end_array(&mut self) {
        self.writer.end_array();
        self.hand_on();
    }
    fn null(&mut self) {
        self.writer.null();
    }
    fn bool(&mut self, value: bool) {
        self.writer.bool(value);
    }
    fn i64(&mut self, value: i64) {
        self.writer.i64(value);
    }
    fn u64(&mut self, value: u64) {
        self.writer.u64(value);
    }
    fn f64(&mut self, value: f64) {
        self.writer.f64(value);
    }
    fn str(&mut self, value: &str) {
        self.writer.str(value);
        self.hand_on();
    }
    fn pointer(&self) -> Option<String> {
        self.writer.pointer()
    }
    fn redacted(&mut self) {
        self.writer.redacted();
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
    fn rejects_duplicate_keys() {
        assert_eq!(
            err(r#"{"x": {"a": 1, "a": 2}}"#),
            ("duplicate-key", 15, "/x/a".into())
        );
    }

    #[test]
    fn reports_the_nesting_depth() {
        let (_, depth, _) = parse_json_with_depth(r#"[[1], {"a": {"b": 1}}, 2]"#).unwrap();
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

    /// Streams a parsed document into a writer (through `serde_json::Value`).
    fn rewrite(src: &str, mut w: JsonWriter) -> String {
        let value = crate::syntax::value::node_to_value(parse_json(src).unwrap());
        crate::syntax::value::write_value(&value, &mut w);
        w.finish()
    }

    /// `json.dumps(obj, indent=2) + "\n"` of a sample, as Python 3 writes it.
    const PYTHON_PRETTY: &str = "{\n  \"component_type\": \"Agent\",\n  \"id\": \"a1\",\n  \"metadata\": {},\n  \"inputs\": [\n    {\n      \"title\": \"city\",\n      \"default\": null,\n      \"n\": 60.0,\n      \"f\": 1e-05,\n      \"big\": 1e+16,\n      \"neg\": -2.5,\n      \"ok\": true,\n      \"no\": false\n    }\n  ],\n  \"s\": \"\\u00e9\\ud83d\\ude00\\\"\\\\/\\n\\r\\t\\b\\f\\u0001\\u007f\",\n  \"empty\": [],\n  \"nested\": [\n    [\n      1,\n      [\n        2,\n        {}\n      ]\n    ],\n    18446744073709551615,\n    -9223372036854775808,\n    0.1,\n    2.5e-07\n  ]\n}\n";

    #[test]
    fn pretty_and_compact_match_python_json_dumps() {
        assert_eq!(rewrite(PYTHON_PRETTY, JsonWriter::pretty()), PYTHON_PRETTY);
        let compact = "{\"component_type\":\"Agent\",\"id\":\"a1\",\"metadata\":{},\"inputs\":[{\"title\":\"city\",\"default\":null,\"n\":60.0,\"f\":1e-05,\"big\":1e+16,\"neg\":-2.5,\"ok\":true,\"no\":false}],\"s\":\"é😀\\\"\\\\/\\n\\r\\t\\b\\f\\u0001\u{7f}\",\"empty\":[],\"nested\":[[1,[2,{}]],18446744073709551615,-9223372036854775808,0.1,2.5e-07]}";
        assert_eq!(rewrite(PYTHON_PRETTY, JsonWriter::compact()), compact);
        // Compact text parses back to the same pretty text.
        assert_eq!(rewrite(compact, JsonWriter::pretty()), PYTHON_PRETTY);
    }

    #[test]
    fn writes_non_finite_floats_as_null_never_invalid_json() {
        let mut w = JsonWriter::compact();
        w.begin_array();
        w.f64(f64::NAN);
        w.f64(f64::INFINITY);
        w.f64(f64::NEG_INFINITY);
        w.f64(-0.0);
        w.u64(u64::MAX);
        w.i64(i64::MIN);
        w.end_array();
        assert_eq!(
            w.finish(),
            "[null,null,null,-0.0,18446744073709551615,-9223372036854775808]"
        );
    }

    #[test]
    fn parses_numbers_and_escapes() {
        let cases = [
            ("0", Value::Int(0)),
            ("-0", Value::Int(0)),
            ("-9223372036854775808", Value::Int(i64::MIN)),
            ("9223372036854775808", Value::UInt(1 << 63)),
            ("18446744073709551616", Value::Float(18446744073709551616.0)),
            ("1.0", Value::Float(1.0)),
            ("1E2", Value::Float(100.0)),
            ("-2.5e-3", Value::Float(-0.0025)),
            (
                r#""a\"\\\/\b\f\n\r\t\u0041\u00e9""#,
                Value::Str("a\"\\/\u{8}\u{c}\n\r\tAé".into()),
            ),
            (r#""\uD83D\uDE00x""#, Value::Str("😀x".into())),
            ("\u{feff} true ", Value::Bool(true)),
        ];
        for (src, value) in cases {
            assert_eq!(parse_json(src).unwrap().value, value, "{src}");
        }
        assert_eq!(parse_json("\u{feff}[1]").unwrap().offset, 3);
    }

    fn message(src: &str) -> String {
        parse_json(src).unwrap_err().remove(0).message
    }

    #[test]
    fn nan_and_infinities_are_named_not_syntax_errors() {
        for text in ["NaN", "[1, Infinity]", "{\"t\": -Infinity}"] {
            let err = parse_json(text).unwrap_err();
            assert_eq!(err[0].code, "non-finite-number", "{text}");
        }
        assert_eq!(
            parse_json("[-1]").unwrap().value,
            Value::Array(vec![Node {
                offset: 1,
                value: Value::Int(-1)
            }])
        );
    }

    #[test]
    fn error_messages_say_what_was_expected() {
        assert_eq!(
            message(r#"{"a": 1]"#),
            "expected `,` or `}` after an object entry, found `]`"
        );
        assert_eq!(
            message("[1, 2"),
            "unexpected end of input: expected `,` or `]` after an array item"
        );
        assert_eq!(message(r#""x\q""#), "invalid escape `\\q` in a string");
        assert_eq!(
            message("1 2"),
            "trailing characters after the document: found `2`"
        );
        assert_eq!(message("{1: 2}"), "expected a string key, found `1`");
        assert_eq!(message("nul"), "expected a value (`null`?), found `nul`");
        assert_eq!(
            message(r#"{"k": 1, "k": 2}"#),
            "the key `k` appears twice in the same object"
        );
        assert_eq!(
            message(&"[".repeat(MAX_DEPTH + 1)),
            "the document nests arrays and objects more than 1024 levels deep"
        );
    }

    #[test]
    fn reports_every_error_at_its_offset() {
        let cases = [
            ("[1,]", 3, "/1"),
            ("[-]", 2, "/0"),
            ("[1.]", 3, "/0"),
            ("[1e+]", 4, "/0"),
            (r#"["\u12x4"]"#, 2, "/0"),
            (r#"["\udc00"]"#, 2, "/0"),
            (r#"["\ud800\u0041"]"#, 2, "/0"),
            ("[\"a\u{1}\"]", 3, "/0"),
            (r#"{"a" 1}"#, 5, ""),
            ("{\"a\": {\"b\": [true, \"x\\", 22, "/a/b/1"),
            ("\u{feff}", 3, ""),
            ("[1] ]", 4, ""),
        ];
        for (src, offset, pointer) in cases {
            assert_eq!(
                err(src),
                ("syntax-error", offset, pointer.to_owned()),
                "{src}"
            );
        }
        let deep = "[".repeat(1100);
        let (code, offset, pointer) = err(&deep);
        assert_eq!((code, offset), ("too-deep", 1024));
        assert_eq!(pointer, "/0".repeat(1024));
    }

    #[test]
    fn finds_duplicates_in_large_objects() {
        let mut src = String::from("{");
        for i in 0..100 {
            src.push_str(&format!("\"k{i}\": {i}, "));
        }
        src.push_str("\"k7\": 0}");
        let at = src.rfind("\"k7\"").unwrap();
        assert_eq!(err(&src), ("duplicate-key", at, "/k7".to_owned()));
        src.replace_range(at..at + 4, "\"k100\"");
        assert!(parse_json(&src).is_ok());
    }

    #[test]
    fn pretty_output_round_trips() {
        let once = rewrite(PYTHON_PRETTY, JsonWriter::pretty());
        assert_eq!(rewrite(&once, JsonWriter::pretty()), once);
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
