//! The source tree: a parsed JSON or YAML document whose every value remembers where it
//! starts in the source text. Typed decoding reads this tree and reports problems with
//! the offsets it carries.

/// A value of the source document and the byte offset at which it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Byte offset of the first character of the value in the source text.
    pub offset: u32,
    /// The value itself.
    pub value: Value,
}

/// A JSON value (YAML documents are read into the same shape).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null` (YAML: `null`, `~`, empty).
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer that fits in `i64`.
    Int(i64),
    /// A non-negative integer above `i64::MAX` that fits in `u64`.
    UInt(u64),
    /// Any other number.
    Float(f64),
    /// A string.
    Str(String),
    /// An array, in source order.
    Array(Vec<Node>),
    /// An object, entries in source order; keys are unique (duplicates are a parse error).
    Object(Vec<Entry>),
}

/// One entry of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The key.
    pub key: Key,
    /// Byte offset of the key in the source text.
    pub key_offset: u32,
    /// The value.
    pub value: Node,
}

impl Value {
    /// The JSON type name of this value, as used in messages (`"object"`, `"string"`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) | Value::UInt(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }
}

/// The deepest nesting of arrays and objects a document may have. pyagentspec's deepest
/// realistic documents (50 flows nested through FlowNode/MapNode) need about 160 levels;
/// past this limit, parsing fails with the code `too-deep`.
pub const MAX_DEPTH: usize = 1024;

/// The message of `non-finite-number`: JSON has no NaN or infinity, so such a value could not
/// be written back (Python's `json` writes `NaN` and `Infinity`, which no JSON parser must
/// accept), and turning it into `null` would change it silently.
pub(crate) const NON_FINITE: &str = "NaN and infinities are not numbers JSON can hold: this \
    value could not be written back as JSON (write it as a string, or as a finite number)";

/// An object key. A key of up to [`Key::INLINE`] bytes (every field name of the language,
/// and most others) is held in the value itself, so that reading a document allocates
/// nothing for its keys; a longer one is held on the heap. It reads as a `&str`.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key(smol_str::SmolStr);

impl Key {
    /// The longest key held inline, in bytes (a `Key` is as large as a `String`).
    pub const INLINE: usize = 23;

    /// The key `s`.
    pub fn new(s: &str) -> Key {
        Key(smol_str::SmolStr::new(s))
    }

    /// The key as a string slice.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl std::ops::Deref for Key {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Key {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Key {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq<str> for Key {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Key {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Key {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Key> for str {
    fn eq(&self, other: &Key) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<Key> for &str {
    fn eq(&self, other: &Key) -> bool {
        *self == other.as_str()
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Key {
    fn from(s: &str) -> Key {
        Key::new(s)
    }
}

impl From<String> for Key {
    fn from(s: String) -> Key {
        Key(s.into())
    }
}

impl From<Key> for String {
    fn from(key: Key) -> String {
        key.0.into()
    }
}

#[cfg(test)]
mod tests {
    use super::Key;

    #[test]
    fn keys_read_as_the_strings_they_were_made_of() {
        let long = "a key longer than twenty-two bytes, é";
        for s in [
            "",
            "id",
            "component_type",
            "exactly_23_bytes_long__",
            "é€𝄞",
            long,
        ] {
            let key = Key::new(s);
            assert_eq!(key.as_str(), s);
            assert_eq!(key, Key::from(s.to_owned()));
            assert_eq!(String::from(key.clone()), s);
            assert!(key == s, "a key equals its string");
            assert!(s == key, "a string equals its key");
            assert_eq!(format!("{key:?}"), format!("{s:?}"));
        }
        assert_eq!(std::mem::size_of::<Key>(), std::mem::size_of::<String>());
        // ordered and hashed as their strings
        let mut keys = vec![Key::new("zz"), Key::new(long), Key::new("b")];
        keys.sort();
        assert_eq!(keys, [Key::new(long), Key::new("b"), Key::new("zz")]);
        let set: std::collections::HashSet<Key> = keys.into_iter().collect();
        assert!(set.contains("b") && set.contains(long) && !set.contains("a"));
    }
}
