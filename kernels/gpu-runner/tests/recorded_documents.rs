//! The JSON documents recorded on the H200 (`results/*.json`: runs and module comparisons) still
//! read, and written back they hold the same fields and values: the records' shared parts (a
//! case's identity, its work, the device and seed, the medians, a peer's method) are flattened,
//! so a reorganised record keeps the file format `just report` and older results use.

use std::path::Path;

use gpu_runner::module_compare::Comparison;
use gpu_runner::report::RunDocument;
use serde_json::Value;

/// `value` without the fields whose value is `null` (an absent optional field and a `null`
/// one read alike).
fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(fields) => Value::Object(
            fields.iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.clone(), without_nulls(v))).collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

fn round_trip<T: serde::de::DeserializeOwned + serde::Serialize>(file: &Path, recorded: &Value) {
    let document: T = serde_json::from_value(recorded.clone())
        .unwrap_or_else(|e| panic!("{} no longer reads: {e}", file.display()));
    let written = serde_json::to_value(&document).unwrap();
    assert!(
        without_nulls(&written) == without_nulls(recorded),
        "{} written back differs from what was recorded",
        file.display()
    );
}

#[test]
fn every_recorded_document_reads_and_writes_back_the_same_fields() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let (mut runs, mut comparisons) = (0, 0);
    for entry in std::fs::read_dir(&results).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        if recorded.get("rows").is_some() {
            round_trip::<RunDocument>(&file, &recorded);
            runs += 1;
        } else if recorded.get("cases").is_some() && recorded.get("shapes").is_some() {
            round_trip::<Comparison>(&file, &recorded);
            comparisons += 1;
        }
    }
    assert!(
        runs >= 6 && comparisons >= 1,
        "found {runs} run documents and {comparisons} comparisons in results/"
    );
}

#[test]
fn a_changed_field_name_is_caught() {
    // The check itself: a document whose case identity lost its flattening would write
    // `"case": {…}` instead of `kernel`, `shape`, `launch`, and differ.
    let recorded = serde_json::json!({"kernel": "k", "shape": "s", "launch": "l"});
    let nested = serde_json::json!({"case": {"kernel": "k", "shape": "s", "launch": "l"}});
    assert_ne!(without_nulls(&recorded), without_nulls(&nested));
    assert_eq!(without_nulls(&serde_json::json!({"a": 1, "b": null})), serde_json::json!({"a": 1}));
}
