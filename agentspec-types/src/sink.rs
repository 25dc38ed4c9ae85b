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
}
