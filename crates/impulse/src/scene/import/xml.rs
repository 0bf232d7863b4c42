//! Reading attributes of model files: numbers and vectors, with errors at the attribute.

use roxmltree::{Document, Node};

use super::{Diagnostics, Loc};
use crate::math::Vec3;

/// Parses `text` as XML; a syntax error is reported at its line and column.
pub(crate) fn parse<'a>(text: &'a str, diag: &mut Diagnostics) -> Option<Document<'a>> {
    match Document::parse(text) {
        Ok(doc) => Some(doc),
        Err(e) => {
            let (line, column) = match e {
                // Reported at the end of the file, where it stopped.
                roxmltree::Error::UnexpectedEndOfStream => {
                    let last = text.trim_end().lines().count().max(1);
                    let column = text
                        .trim_end()
                        .lines()
                        .last()
                        .map_or(0, |l| l.chars().count());
                    (last, column + 1)
                }
                _ => (e.pos().row as usize, e.pos().col as usize),
            };
            diag.error(
                &Loc {
                    line,
                    column,
                    element: String::new(),
                },
                format!("malformed XML: {e}"),
            );
            None
        }
    }
}

/// The element children of `node`.
pub(crate) fn elements<'a, 'i>(node: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    node.children().filter(|c| c.is_element())
}

/// The first child element named `tag`.
pub(crate) fn child<'a, 'i>(node: Node<'a, 'i>, tag: &str) -> Option<Node<'a, 'i>> {
    elements(node).find(|c| c.tag_name().name() == tag)
}

/// Attribute `name` as a list of finite numbers (`None` if absent; an error if malformed).
pub(crate) fn numbers(node: Node<'_, '_>, name: &str, diag: &mut Diagnostics) -> Option<Vec<f64>> {
    let text = node.attribute(name)?;
    let mut out = Vec::new();
    for word in text.split_whitespace() {
        match word.parse::<f64>() {
            Ok(x) if x.is_finite() => out.push(x),
            _ => {
                diag.error(
                    &Loc::attribute(&node, name),
                    format!("expected numbers, found `{word}`"),
                );
                return None;
            }
        }
    }
    Some(out)
}

/// Attribute `name` as exactly `N` numbers.
pub(crate) fn fixed<const N: usize>(
    node: Node<'_, '_>,
    name: &str,
    diag: &mut Diagnostics,
) -> Option<[f64; N]> {
    let values = numbers(node, name, diag)?;
    match <[f64; N]>::try_from(values.as_slice()) {
        Ok(a) => Some(a),
        Err(_) => {
            diag.error(
                &Loc::attribute(&node, name),
                format!("expected {N} numbers, found {}", values.len()),
            );
            None
        }
    }
}

/// Attribute `name` as a vector.
pub(crate) fn vec3(node: Node<'_, '_>, name: &str, diag: &mut Diagnostics) -> Option<Vec3> {
    fixed::<3>(node, name, diag).map(|[x, y, z]| Vec3::new(x, y, z))
}

/// Attribute `name` as one number.
pub(crate) fn number(node: Node<'_, '_>, name: &str, diag: &mut Diagnostics) -> Option<f64> {
    fixed::<1>(node, name, diag).map(|[x]| x)
}

/// Attribute `name` as a number that must be positive.
pub(crate) fn positive(node: Node<'_, '_>, name: &str, diag: &mut Diagnostics) -> Option<f64> {
    let x = number(node, name, diag)?;
    if x > 0.0 {
        Some(x)
    } else {
        diag.error(
            &Loc::attribute(&node, name),
            format!("expected a positive number, found {x}"),
        );
        None
    }
}

/// Attribute `name`, required: an error at the element if absent.
pub(crate) fn required<'a>(
    node: Node<'a, '_>,
    name: &str,
    what: &str,
    diag: &mut Diagnostics,
) -> Option<&'a str> {
    let value = node.attribute(name);
    if value.is_none() {
        diag.error(
            &Loc::of(&node),
            format!("missing attribute `{name}` ({what})"),
        );
    }
    value
}
