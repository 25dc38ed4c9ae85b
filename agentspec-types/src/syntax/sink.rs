//! The writing side: typed components stream themselves into a [`Sink`], which is a JSON
//! writer (pretty or compact), a YAML writer, or a builder of `serde_json::Value`.

/// Receives a document as a stream of events, in order.
///
/// Calls always nest properly: every `begin_*` has its `end_*`, and inside an object each
/// value is preceded by exactly one `key`.
pub trait Sink {
    /// Starts an object.
    fn begin_object(&mut self);
    /// Writes the key of the next object entry.
    fn key(&mut self, key: &str);
    /// Ends the current object.
    fn end_object(&mut self);
    /// Starts an array.
    fn begin_array(&mut self);
    /// Ends the current array.
    fn end_array(&mut self);
    /// Writes `null`.
    fn null(&mut self);
    /// Writes a boolean.
    fn bool(&mut self, value: bool);
    /// Writes a signed integer.
    fn i64(&mut self, value: i64);
    /// Writes an unsigned integer.
    fn u64(&mut self, value: u64);
    /// Writes a floating-point number (written as Python's `repr` does: `60.0`, `1e-05`).
    fn f64(&mut self, value: f64);
    /// Writes a string.
    fn str(&mut self, value: &str);
    /// The JSON pointer of the value being written, for sinks that track it.
    fn pointer(&self) -> Option<String> {
        None
    }
    /// The value written next is a placeholder standing for a secret that the writer leaves
    /// out (secrets not included).
    fn redacted(&mut self) {}
}

/// A sink that writes nothing and keeps the pointer of every value of one kind written, in one
/// pass: NaN and infinities (what a document built in code may hold, and JSON cannot: its
/// writers write `null` there), or the secrets written as placeholders (what `agentspec fmt`
/// reports).
#[derive(Debug, Default)]
pub(crate) struct FindSink {
    path: PathSink,
    /// Whether it finds secrets written as placeholders (else non-finite numbers).
    redacted: bool,
    /// The pointers found, in document order.
    pub found: Vec<String>,
}

impl FindSink {
    /// Finds NaN and infinities.
    pub(crate) fn non_finite() -> Self {
        FindSink::default()
    }

    /// Finds the secrets written as placeholders.
    pub(crate) fn redacted() -> Self {
        FindSink {
            redacted: true,
            ..FindSink::default()
        }
    }

    /// Keeps the pointer of the value about to be written.
    fn found_here(&mut self) {
        let mut pointer = self.path.pointer().unwrap_or_default();
        match (&self.path.key, self.path.stack.last()) {
            (Some(key), _) => crate::diagnostic::push_pointer_token(&mut pointer, key),
            (None, Some((_, index))) => {
                crate::diagnostic::push_pointer_token(&mut pointer, &index.to_string());
            }
            (None, None) => {}
        }
        self.found.push(pointer);
    }
}

impl Sink for FindSink {
    fn begin_object(&mut self) {
        self.path.begin_object();
    }
    fn key(&mut self, key: &str) {
        self.path.key(key);
    }
    fn end_object(&mut self) {
        self.path.end_object();
    }
    fn begin_array(&mut self) {
        self.path.begin_array();
    }
    fn end_array(&mut self) {
        self.path.end_array();
    }
    fn null(&mut self) {
        self.path.null();
    }
    fn bool(&mut self, _: bool) {
        self.path.null();
    }
    fn i64(&mut self, _: i64) {
        self.path.null();
    }
    fn u64(&mut self, _: u64) {
        self.path.null();
    }
    fn f64(&mut self, value: f64) {
        if !self.redacted && !value.is_finite() {
            self.found_here();
        }
        self.path.null();
    }
    fn str(&mut self, _: &str) {
        self.path.null();
    }
    fn redacted(&mut self) {
        if self.redacted {
            self.found_here();
        }
    }
}

/// A sink that writes nothing and tracks where it is: for walks over what would be written
/// (such as finding the version a document needs).
#[derive(Debug, Default)]
pub struct PathSink {
    // keys held inline (most are short): no allocation per key written
    stack: Vec<(Option<smol_str::SmolStr>, usize)>,
    key: Option<smol_str::SmolStr>,
}

impl PathSink {
    /// A sink at the document root.
    pub fn new() -> Self {
        PathSink::default()
    }

    fn value(&mut self) {
        if let Some((_, index)) = self.stack.last_mut()
            && self.key.is_none()
        {
            *index += 1;
        }
    }
}

impl Sink for PathSink {
    fn begin_object(&mut self) {
        self.value();
        self.stack.push((self.key.take(), 0));
    }
    fn key(&mut self, key: &str) {
        self.key = Some(smol_str::SmolStr::new(key));
    }
    fn end_object(&mut self) {
        self.stack.pop();
        self.key = None;
    }
    fn begin_array(&mut self) {
        self.value();
        self.stack.push((self.key.take(), 0));
    }
    fn end_array(&mut self) {
        self.stack.pop();
        self.key = None;
    }
    fn null(&mut self) {
        self.value();
        self.key = None;
    }
    fn bool(&mut self, _: bool) {
        self.null();
    }
    fn i64(&mut self, _: i64) {
        self.null();
    }
    fn u64(&mut self, _: u64) {
        self.null();
    }
    fn f64(&mut self, _: f64) {
        self.null();
    }
    fn str(&mut self, _: &str) {
        self.null();
    }
    fn pointer(&self) -> Option<String> {
        let mut out = String::new();
        for (i, (key, _)) in self.stack.iter().enumerate().skip(1) {
            match key {
                Some(k) => crate::diagnostic::push_pointer_token(&mut out, k),
                None => crate::diagnostic::push_pointer_token(
                    &mut out,
                    &(self.stack[i - 1].1 - 1).to_string(),
                ),
            }
        }
        Some(out)
    }
}

/// Two sinks fed the same values, in one pass over the document: what is written and what is
/// found while writing it (`agentspec fmt` writes the text, builds the skeleton of the layout
/// and finds the secrets written as placeholders, in one walk).
#[derive(Debug, Default)]
pub(crate) struct Tee<A, B>(pub A, pub B);

impl<A: Sink, B: Sink> Sink for Tee<A, B> {
    fn begin_object(&mut self) {
        self.0.begin_object();
        self.1.begin_object();
    }
    fn key(&mut self, key: &str) {
        self.0.key(key);
        self.1.key(key);
    }
    fn end_object(&mut self) {
        self.0.end_object();
        self.1.end_object();
    }
    fn begin_array(&mut self) {
        self.0.begin_array();
        self.1.begin_array();
    }
    fn end_array(&mut self) {
        self.0.end_array();
        self.1.end_array();
    }
    fn null(&mut self) {
        self.0.null();
        self.1.null();
    }
    fn bool(&mut self, value: bool) {
        self.0.bool(value);
        self.1.bool(value);
    }
    fn i64(&mut self, value: i64) {
        self.0.i64(value);
        self.1.i64(value);
    }
    fn u64(&mut self, value: u64) {
        self.0.u64(value);
        self.1.u64(value);
    }
    fn f64(&mut self, value: f64) {
        self.0.f64(value);
        self.1.f64(value);
    }
    fn str(&mut self, value: &str) {
        self.0.str(value);
        self.1.str(value);
    }
    fn pointer(&self) -> Option<String> {
        self.0.pointer().or_else(|| self.1.pointer())
    }
    fn redacted(&mut self) {
        self.0.redacted();
        self.1.redacted();
    }
}
