//! Parameter overrides: `{"world.gravity": [0, 0, -1.62], "materials.steel.friction": 0.2}`
//! written into a scene's TOML document before it is read, so that a variant is exactly the
//! scene file with those values changed (comments, order and every other line kept: the
//! reader's messages name the same lines as for the file itself).

use toml_edit::{DocumentMut, Item, Table, Value};

/// One override: a dotted key path and its new value (JSON-like, from Python).
pub type Override = (String, serde_json::Value);

/// `text` with every override written in. A path walks tables by key; in an array of tables
/// (`[[bodies]]`) a step is an element's `name` or its index. The last step may name a key the
/// scene leaves out (the reader then checks it is a known key); every step before it must exist.
pub fn apply(text: &str, overrides: &[Override]) -> Result<String, String> {
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("the scene does not parse as TOML: {e}"))?;
    for (path, value) in overrides {
        set(doc.as_table_mut(), path, value)?;
    }
    Ok(doc.to_string())
}

fn set(root: &mut Table, path: &str, value: &serde_json::Value) -> Result<(), String> {
    let steps: Vec<&str> = path.split('.').collect();
    if path.is_empty() || steps.iter().any(|s| s.is_empty()) {
        return Err(format!(
            "override key `{path}`: expected a dotted path such as `world.gravity` or \
             `materials.steel.friction`"
        ));
    }
    let new = to_toml(value).map_err(|e| format!("override `{path}`: {e}"))?;
    let table = walk(root, &steps[..steps.len() - 1], path, "")?;
    let last = steps[steps.len() - 1];
    match table.get_mut(last) {
        Some(Item::Value(old)) => {
            let decor = old.decor().clone();
            *old = new;
            *old.decor_mut() = decor;
        }
        Some(_) => {
            return Err(format!(
                "override `{path}`: `{path}` is a table; override the keys inside it"
            ));
        }
        None => {
            table.insert(last, Item::Value(new));
        }
    }
    Ok(())
}

/// The table `steps` leads to from `table` (`walked`: the path so far, for messages).
fn walk<'t>(
    table: &'t mut Table,
    steps: &[&str],
    path: &str,
    walked: &str,
) -> Result<&'t mut Table, String> {
    let Some((step, rest)) = steps.split_first() else {
        return Ok(table);
    };
    let here = |walked: &str| {
        if walked.is_empty() {
            "the scene's top level".to_string()
        } else {
            format!("`{walked}`")
        }
    };
    let keys: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
    let next = join(walked, step);
    match table.get_mut(step) {
        None => Err(format!(
            "unknown override key `{path}`: {} has no `{step}` (it has: {})",
            here(walked),
            if keys.is_empty() {
                "nothing".to_string()
            } else {
                keys.join(", ")
            }
        )),
        Some(Item::Table(t)) => walk(t, rest, path, &next),
        Some(Item::ArrayOfTables(array)) => {
            // `[[bodies]]`: the next step names an element by its `name`, or gives its index.
            let Some((element, rest)) = rest.split_first() else {
                return Err(format!(
                    "override `{path}`: `{next}` is an array of tables; name an element \
                     (`{next}.NAME.key` or `{next}.INDEX.key`)"
                ));
            };
            let names: Vec<String> = array
                .iter()
                .map(|t| {
                    t.get("name")
                        .and_then(|n| n.as_str())
                        .unwrap_or("?")
                        .to_string()
                })
                .collect();
            let index = names
                .iter()
                .position(|n| n == element)
                .or_else(|| element.parse::<usize>().ok().filter(|&i| i < names.len()));
            let Some(index) = index else {
                return Err(format!(
                    "unknown override key `{path}`: `{next}` has no element named `{element}` \
                     (names: {}; or an index from 0 to {})",
                    names.join(", "),
                    names.len().saturating_sub(1)
                ));
            };
            let t = array
                .get_mut(index)
                .ok_or_else(|| format!("override `{path}`: element {index} went missing"))?;
            walk(t, rest, path, &join(&next, element))
        }
        Some(Item::Value(Value::InlineTable(_))) => Err(format!(
            "override `{path}`: `{next}` is an inline table; write it as a [table] in the \
             scene to override the keys inside it"
        )),
        Some(_) => Err(format!(
            "override `{path}`: `{next}` is a value, not a table of keys"
        )),
    }
}

fn join(walked: &str, step: &str) -> String {
    if walked.is_empty() {
        step.to_string()
    } else {
        format!("{walked}.{step}")
    }
}

fn to_toml(value: &serde_json::Value) -> Result<Value, String> {
    use serde_json::Value as J;
    Ok(match value {
        J::Bool(b) => Value::from(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => Value::from(i),
            None => Value::from(n.as_f64().ok_or("a number out of range")?),
        },
        J::String(s) => Value::from(s.as_str()),
        J::Array(items) => {
            let mut array = toml_edit::Array::new();
            for item in items {
                array.push(to_toml(item)?);
            }
            Value::Array(array)
        }
        J::Object(map) => {
            let mut table = toml_edit::InlineTable::new();
            for (k, v) in map {
                table.insert(k, to_toml(v)?);
            }
            Value::InlineTable(table)
        }
        J::Null => return Err("None is not a TOML value".into()),
    })
}
