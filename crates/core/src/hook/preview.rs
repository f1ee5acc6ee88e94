//! A hook payload too large to send whole, made small enough with its shape kept.
//!
//! Claude Code hands a hook everything: a Write's whole content, a Bash call's whole output. The hub needs
//! a payload's shape (the event, the tool, the ids, the short fields the indicator and the request card
//! read) and a preview of anything long, never all of it, and it takes bodies of at most a megabyte. So a
//! payload over the limit is shrunk before it is sent: every long string becomes its first characters and a
//! note of how much was left out; if that is not enough, the tool's response and then the long parts of its
//! input become a preview of their JSON. What a hook prints for Claude never comes from the shrunk payload
//! alone: [`restore`] puts the original back wherever the hub's answer hands the input back unchanged.
//!
//! Pure: bytes in, bytes out.

use serde_json::{Map, Value};

/// How many characters of a long string are kept.
pub const PREVIEW_CHARS: usize = 2048;

/// A payload made small enough to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Shrunk {
    /// What is sent.
    pub bytes: Vec<u8>,
    /// The same, as a value: what the hub was told, to compare its answer with.
    pub sent: Value,
    /// The payload as it came, to restore from.
    pub original: Value,
}

/// The payload to send for `raw` so that it is at most `limit` bytes: `None` when it fits as it is (or is
/// not a JSON object, which the hub refuses with the reason either way).
pub fn shrink(raw: &[u8], limit: usize) -> Option<Shrunk> {
    if raw.len() <= limit {
        return None;
    }
    let original: Value = serde_json::from_slice(raw).ok()?;
    if !original.is_object() {
        return None;
    }
    let mut small = original.clone();
    cut_strings(&mut small);
    let mut bytes = serde_json::to_vec(&small).ok()?;
    for field in ["tool_response", "tool_input"] {
        if bytes.len() <= limit {
            break;
        }
        if let Some(v) = small.get_mut(field) {
            *v = shape_of(v);
        }
        bytes = serde_json::to_vec(&small).ok()?;
    }
    Some(Shrunk {
        bytes,
        sent: small,
        original,
    })
}

/// `s` cut to its preview, with a note of what was left out.
fn cut(s: &str) -> Option<String> {
    let (at, _) = s.char_indices().nth(PREVIEW_CHARS)?;
    let left = s.len() - at;
    Some(format!(
        "{}… [{left} more bytes not sent to ClawMux]",
        &s[..at]
    ))
}

/// Cuts every long string in `v` to its preview.
fn cut_strings(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(short) = cut(s) {
                *s = short;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(cut_strings),
        Value::Object(fields) => fields.values_mut().for_each(cut_strings),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A large value (many fields or items) as the hub can still read it: an object keeps its short scalar
/// fields (a command, a path, a description) and says what the rest held; anything else is a preview of
/// its JSON.
fn shape_of(v: &Value) -> Value {
    let text = v.to_string();
    let Value::Object(fields) = v else {
        return Value::String(cut(&text).unwrap_or(text));
    };
    let mut kept = Map::new();
    for (k, field) in fields {
        let short = match field {
            Value::String(s) => s.len() <= 256,
            Value::Null | Value::Bool(_) | Value::Number(_) => true,
            Value::Array(_) | Value::Object(_) => false,
        };
        if short {
            kept.insert(k.clone(), field.clone());
        }
    }
    kept.insert(
        "clawmux_preview".into(),
        Value::String(cut(&text).unwrap_or(text)),
    );
    Value::Object(kept)
}

/// `answered` (what the hub hands back, e.g. a decision's `updatedInput`) with the original wherever it
/// holds the shrunk value unchanged: Claude Code never gets a preview where it sent the whole.
pub fn restore(answered: &Value, shrunk: &Value, original: &Value) -> Value {
    if answered == shrunk {
        return original.clone();
    }
    match (answered, shrunk, original) {
        (Value::Object(a), Value::Object(s), Value::Object(o)) => Value::Object(
            a.iter()
                .map(|(k, v)| {
                    let v = match (s.get(k), o.get(k)) {
                        (Some(s), Some(o)) => restore(v, s, o),
                        _ => v.clone(),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        (Value::Array(a), Value::Array(s), Value::Array(o)) if s.len() == o.len() => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, v)| match (s.get(i), o.get(i)) {
                    (Some(s), Some(o)) => restore(v, s, o),
                    _ => v.clone(),
                })
                .collect(),
        ),
        _ => answered.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const LIMIT: usize = 64 * 1024;

    #[test]
    fn a_payload_that_fits_is_sent_as_it_is() {
        let small = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash"}).to_string();
        assert_eq!(shrink(small.as_bytes(), LIMIT), None);
        assert_eq!(
            shrink(&vec![b'x'; LIMIT + 1], LIMIT),
            None,
            "not JSON: as it is"
        );
    }

    #[test]
    fn a_long_write_keeps_its_shape_and_a_preview() {
        let content = "a".repeat(1_200_000);
        let payload = json!({"hook_event_name": "PermissionRequest", "tool_name": "Write",
            "tool_input": {"file_path": "/w/big.txt", "content": content}});
        let Shrunk {
            bytes,
            sent,
            original,
        } = shrink(payload.to_string().as_bytes(), LIMIT).unwrap();
        assert!(bytes.len() <= LIMIT, "{}", bytes.len());
        let small: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(small, sent);
        assert_eq!(small["tool_name"], "Write");
        assert_eq!(small["tool_input"]["file_path"], "/w/big.txt");
        let preview = small["tool_input"]["content"].as_str().unwrap();
        assert!(preview.starts_with(&"a".repeat(PREVIEW_CHARS)));
        assert!(
            preview.ends_with("… [1197952 more bytes not sent to ClawMux]"),
            "{preview}"
        );
        assert_eq!(original, payload);
        // Characters, not bytes: a preview never splits one.
        let wide = json!({"tool_input": {"content": "é".repeat(40_000)}});
        let bytes = shrink(wide.to_string().as_bytes(), LIMIT).unwrap().bytes;
        assert!(std::str::from_utf8(&bytes).is_ok());
    }

    #[test]
    fn many_small_parts_become_the_shape_of_the_whole() {
        let lines: Vec<Value> = (0..20_000).map(|i| json!(format!("line {i}"))).collect();
        let payload = json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "t1",
            "tool_input": {"command": "seq 20000", "description": "count"},
            "tool_response": {"stdout": lines, "interrupted": false}});
        let bytes = shrink(payload.to_string().as_bytes(), LIMIT).unwrap().bytes;
        assert!(bytes.len() <= LIMIT, "{}", bytes.len());
        let small: Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(small["tool_use_id"], "t1");
        assert_eq!(
            small["tool_input"]["command"], "seq 20000",
            "the input was small enough"
        );
        assert_eq!(small["tool_response"]["interrupted"], false);
        assert!(small["tool_response"]["clawmux_preview"]
            .as_str()
            .unwrap()
            .starts_with("{"));
    }

    #[test]
    fn what_the_hub_hands_back_unchanged_is_the_original_again() {
        let plan = "step\n".repeat(100_000);
        let original = json!({"plan": plan, "questions": [{"q": "x".repeat(5000)}]});
        let mut shrunk = original.clone();
        cut_strings(&mut shrunk);
        assert_eq!(restore(&shrunk, &shrunk, &original), original);
        // An answer added beside the questions: the questions are the original again, the answer stays.
        let mut answered = shrunk.clone();
        answered["answers"] = json!({"x": "yes"});
        let back = restore(&answered, &shrunk, &original);
        assert_eq!(back["plan"], original["plan"]);
        assert_eq!(back["questions"], original["questions"]);
        assert_eq!(back["answers"], json!({"x": "yes"}));
    }
}
