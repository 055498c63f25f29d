//! A validator for the subset of JSON Schema (2020-12) that `docs/protocol/*.schema.json` use:
//! `type` (a name or a list), `const`, `enum`, `properties`, `required`,
//! `additionalProperties` (a boolean or a schema), `items`, `minItems`, `maxItems`, `minimum`,
//! `maximum`, and `$ref` to `#/$defs/<name>`. Any other keyword is refused, so a schema cannot
//! silently use more than is checked.

use serde_json::Value;

const KNOWN: &[&str] = &[
    "$schema",
    "$id",
    "$defs",
    "title",
    "description",
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "$ref",
];

/// Checks `value` against `schema` (whose `$defs` resolve `$ref`s); the error says where.
pub fn validate(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, schema, value, "$")
}

fn type_ok(name: &str, v: &Value) -> bool {
    match name {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        other => panic!("unknown type {other} in schema"),
    }
}

fn check(root: &Value, s: &Value, v: &Value, at: &str) -> Result<(), String> {
    let s = s
        .as_object()
        .ok_or_else(|| format!("{at}: schema is not an object"))?;
    for k in s.keys() {
        assert!(
            KNOWN.contains(&k.as_str()),
            "schema keyword {k} is not supported"
        );
    }
    if let Some(r) = s.get("$ref") {
        let name = r
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .unwrap_or_else(|| panic!("unsupported $ref {r}"));
        let target = &root["$defs"][name];
        assert!(!target.is_null(), "$ref to missing def {name}");
        check(root, target, v, at)?;
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(name) => type_ok(name, v),
            Value::Array(names) => names.iter().any(|n| type_ok(n.as_str().unwrap(), v)),
            _ => panic!("bad type in schema"),
        };
        if !ok {
            return Err(format!("{at}: {v} is not of type {t}"));
        }
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        return Err(format!("{at}: {v} is not {c}"));
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(v)
    {
        return Err(format!("{at}: {v} is not one of {options:?}"));
    }
    if let Some(x) = v.as_f64() {
        if let Some(min) = s.get("minimum").and_then(Value::as_f64)
            && x < min
        {
            return Err(format!("{at}: {v} < minimum {min}"));
        }
        if let Some(max) = s.get("maximum").and_then(Value::as_f64)
            && x > max
        {
            return Err(format!("{at}: {v} > maximum {max}"));
        }
    }
    if let Value::Array(items) = v {
        if let Some(min) = s.get("minItems").and_then(Value::as_u64)
            && (items.len() as u64) < min
        {
            return Err(format!("{at}: {} items, fewer than {min}", items.len()));
        }
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
            && (items.len() as u64) > max
        {
            return Err(format!("{at}: {} items, more than {max}", items.len()));
        }
        if let Some(item) = s.get("items") {
            for (i, x) in items.iter().enumerate() {
                check(root, item, x, &format!("{at}[{i}]"))?;
            }
        }
    }
    if let Value::Object(fields) = v {
        let props = s.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(req)) = s.get("required") {
            for r in req {
                let r = r.as_str().unwrap();
                if !fields.contains_key(r) {
                    return Err(format!("{at}: missing required field {r}"));
                }
            }
        }
        for (k, x) in fields {
            let at = format!("{at}.{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(root, ps, x, &at)?,
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => return Err(format!("{at}: field not allowed")),
                    Some(Value::Bool(true)) | None => {}
                    Some(extra) => check(root, extra, x, &at)?,
                },
            }
        }
    }
    Ok(())
}

#[test]
fn the_validator_rejects_what_it_should() {
    let schema: Value = serde_json::from_str(
        r##"{"type":"object","properties":{"a":{"type":"integer","minimum":1},
        "b":{"type":"array","items":{"$ref":"#/$defs/w"},"maxItems":2},"t":{"const":"x"}},
        "required":["a"],"additionalProperties":false,
        "$defs":{"w":{"type":"string","enum":["p","q"]}}}"##,
    )
    .unwrap();
    let ok = |text: &str| validate(&schema, &serde_json::from_str(text).unwrap());
    assert!(ok(r#"{"a":1,"b":["p","q"],"t":"x"}"#).is_ok());
    for bad in [
        r#"{"b":[]}"#,
        r#"{"a":0}"#,
        r#"{"a":1.5}"#,
        r#"{"a":1,"b":["r"]}"#,
        r#"{"a":1,"b":["p","p","p"]}"#,
        r#"{"a":1,"c":2}"#,
        r#"{"a":1,"t":"y"}"#,
        r#"[1]"#,
    ] {
        assert!(ok(bad).is_err(), "{bad} should be rejected");
    }
}
