//! A JSON tree printed byte for byte the way fio's `json.c` prints it.
//!
//! fio does not use a JSON library: `json_print_object` writes `"key" : value` pairs, one per
//! line, indented two spaces per level, with integers as `%lld` and floats as `%f` (always six
//! decimals, `0.000000`). Tools that diff or grep fio's output depend on that shape, so
//! [`Object`] keeps pairs in insertion order and [`print()`] reproduces it. Two departures keep
//! the output valid JSON where fio's would not be: strings escape control characters, and a
//! float that is not finite prints as `null` (fio would print `nan`). [`Value::Null`] exists
//! for ssdtwin's own keys; fio never prints it.

use std::fmt::Write;

/// A JSON value with fio's distinction between integers and floats.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// Printed as a decimal integer.
    Int(u64),
    /// Printed with six decimals, as C's `%f`.
    Float(f64),
    /// A string, escaped.
    Str(String),
    /// `null` (ssdtwin's keys only).
    Null,
    /// A nested object.
    Object(Object),
    /// An array.
    Array(Vec<Value>),
}

/// Key/value pairs in the order they were added (fio prints keys in insertion order).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Object {
    pairs: Vec<(String, Value)>,
}

impl Object {
    /// An empty object.
    pub(crate) fn new() -> Self {
        Object::default()
    }

    /// Appends any value.
    pub(crate) fn add(&mut self, key: impl Into<String>, value: Value) {
        self.pairs.push((key.into(), value));
    }

    /// Appends an integer.
    pub(crate) fn int(&mut self, key: impl Into<String>, value: u64) {
        self.add(key, Value::Int(value));
    }

    /// Appends a float.
    pub(crate) fn float(&mut self, key: impl Into<String>, value: f64) {
        self.add(key, Value::Float(value));
    }

    /// Appends a string.
    pub(crate) fn string(&mut self, key: impl Into<String>, value: &str) {
        self.add(key, Value::Str(value.to_string()));
    }

    /// Appends a nested object.
    pub(crate) fn object(&mut self, key: impl Into<String>, value: Object) {
        self.add(key, Value::Object(value));
    }
}

/// Prints `root` as fio does, with the trailing newline fio adds after the closing brace.
pub(crate) fn print(root: &Object) -> String {
    let mut out = String::with_capacity(16 * 1024);
    print_object(root, 0, &mut out);
    out.push('\n');
    out
}

/// Two spaces per level, as `json_print_level`.
fn indent(level: usize, out: &mut String) {
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// An object whose opening brace sits on a line indented `level` times: pairs one level
/// deeper, the closing brace back at `level`. An empty object prints as `{`, a blank line and
/// `}`, as fio's does.
fn print_object(obj: &Object, level: usize, out: &mut String) {
    out.push_str("{\n");
    for (i, (key, value)) in obj.pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(level + 1, out);
        print_string(key, out);
        out.push_str(" : ");
        print_value(value, level + 1, out);
    }
    out.push('\n');
    indent(level, out);
    out.push('}');
}

/// An array: each element on its own line one level deeper.
fn print_array(values: &[Value], level: usize, out: &mut String) {
    out.push_str("[\n");
    for (i, value) in values.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n");
        }
        indent(level + 1, out);
        print_value(value, level + 1, out);
    }
    out.push('\n');
    indent(level, out);
    out.push(']');
}

fn print_value(value: &Value, level: usize, out: &mut String) {
    match value {
        Value::Int(v) => {
            write!(out, "{v}").expect("writing to a String cannot fail");
        }
        Value::Float(v) if v.is_finite() => {
            // `{:.6}` rounds the exact binary value like glibc's `%f`. Adding 0.0 turns -0.0
            // into 0.0: fio's values are never negative.
            write!(out, "{:.6}", v + 0.0).expect("writing to a String cannot fail");
        }
        Value::Float(_) | Value::Null => out.push_str("null"),
        Value::Str(s) => print_string(s, out),
        Value::Object(o) => print_object(o, level, out),
        Value::Array(a) => print_array(a, level, out),
    }
}

/// A quoted string. fio escapes `"` and `\`; control characters are escaped too so that the
/// output stays valid JSON whatever a job name contains.
fn print_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => {
                write!(out, "\\u{:04x}", c as u32).expect("writing to a String cannot fail");
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_and_spacing_follow_fio() {
        let mut inner = Object::new();
        inner.int("min", 0);
        inner.float("mean", 0.0);
        let mut job = Object::new();
        job.string("jobname", "t");
        job.object("lat_ns", inner);
        let mut root = Object::new();
        root.string("fio version", "fio-3.33");
        root.add("jobs", Value::Array(vec![Value::Object(job)]));
        let expected = "{\n  \"fio version\" : \"fio-3.33\",\n  \"jobs\" : [\n    {\n      \"jobname\" : \"t\",\n      \
                        \"lat_ns\" : {\n        \"min\" : 0,\n        \"mean\" : 0.000000\n      }\n    }\n  ]\n}\n";
        assert_eq!(print(&root), expected);
    }

    #[test]
    fn floats_have_six_decimals_and_stay_valid_json() {
        let mut root = Object::new();
        root.float("iops", 49_530.156_614_2);
        root.float("neg_zero", -0.0);
        root.float("nan", f64::NAN);
        root.add("none", Value::Null);
        let text = print(&root);
        assert!(text.contains("\"iops\" : 49530.156614,"));
        assert!(text.contains("\"neg_zero\" : 0.000000,"));
        assert!(text.contains("\"nan\" : null,"));
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(parsed["none"].is_null());
    }

    #[test]
    fn strings_are_escaped() {
        let mut root = Object::new();
        root.string("name", "a\"b\\c\nd\u{1}");
        let text = print(&root);
        let parsed: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed["name"], "a\"b\\c\nd\u{1}");
    }

    #[test]
    fn empty_containers_print_as_fio_prints_them() {
        let mut root = Object::new();
        root.object("o", Object::new());
        root.add("a", Value::Array(Vec::new()));
        assert_eq!(print(&root), "{\n  \"o\" : {\n\n  },\n  \"a\" : [\n\n  ]\n}\n");
    }
}
