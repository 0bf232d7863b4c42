//! A strict TOML reader that keeps every value's place in the file.
//!
//! Scene files are untrusted input. Parsing with serde would stop at the first problem and lose
//! where later values came from, so scenes are read from `toml`'s spanned document tree instead:
//! every lookup records its key path, every problem becomes a [`Diagnostic`] with the file, line,
//! column and key, and reading goes on so that one pass reports *all* problems. Keys a table
//! does not know are reported with the closest known key as a suggestion.

use std::cell::RefCell;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use crate::math::{Vec3, readable};

type Spanned<T> = toml::Spanned<T>;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// The scene cannot be run.
    Error,
    /// The scene runs, but probably not as intended.
    Warning,
}

/// One problem in a scene file, located by line and column (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The scene file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// Key path, e.g. `bodies[2].shape.radius` (empty for file-level problems).
    pub key: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        // Control characters from the file (a quoted TOML key, a file name, the source line
        // a parse error quotes) are shown escaped, never sent to the terminal (issue 42); the
        // message keeps its own line breaks.
        write!(
            f,
            "{}:{}:{}: {kind}: ",
            printable(&self.path.display().to_string(), false),
            self.line,
            self.column
        )?;
        if !self.key.is_empty() {
            write!(f, "`{}`: ", printable(&self.key, false))?;
        }
        f.write_str(&compact_numbers(&printable(&self.message, true)))
    }
}

/// `text` with every number written out in more than 24 characters (how `{}` shows 1e300 or
/// 1e-300: 301 digits) written compactly instead ([`readable`]): the readers' messages show
/// values as they were read, and a few still format them plainly.
pub(crate) fn compact_numbers(text: &str) -> std::borrow::Cow<'_, str> {
    const LONG: usize = 24;
    let bytes = text.as_bytes();
    let numeric = |b: u8| b.is_ascii_digit() || b == b'.';
    let mut out: Option<String> = None;
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        if !numeric(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && numeric(bytes[i]) {
            i += 1;
        }
        let run = &text[start..i];
        if run.len() > LONG
            && run.matches('.').count() <= 1
            && let Ok(value) = run.parse::<f64>()
        {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..start]);
            out.push_str(&readable(value));
            copied = i;
        }
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            std::borrow::Cow::Owned(out)
        }
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// `text` with its control characters escaped (`\u{1b}`), line breaks kept if asked.
pub(crate) fn printable(text: &str, keep_line_breaks: bool) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && !(keep_line_breaks && c == '\n');
    if !text.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The file being read and the diagnostics found so far.
pub struct Context<'s> {
    path: PathBuf,
    text: &'s str,
    line_starts: Vec<usize>,
    diagnostics: RefCell<Vec<Diagnostic>>,
}

impl<'s> Context<'s> {
    /// A context for `text`, read from `path`.
    pub fn new(path: &Path, text: &'s str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self {
            path: path.to_path_buf(),
            text,
            line_starts,
            diagnostics: RefCell::new(Vec::new()),
        }
    }

    /// The scene file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Line and column (1-based, column in characters) of a byte offset.
    pub fn location(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let column = self.text[start..offset].chars().count() + 1;
        (line, column)
    }

    /// Records a diagnostic at `span`.
    pub fn report(&self, severity: Severity, span: &Range<usize>, key: &str, message: String) {
        let (line, column) = self.location(span.start);
        self.diagnostics.borrow_mut().push(Diagnostic {
            severity,
            path: self.path.clone(),
            line,
            column,
            key: key.to_string(),
            message,
        });
    }

    /// Records a diagnostic found in another file (a robot model the scene refers to).
    pub fn push(&self, diagnostic: Diagnostic) {
        self.diagnostics.borrow_mut().push(diagnostic);
    }

    /// Records an error at `span`.
    pub fn error(&self, span: &Range<usize>, key: &str, message: impl Into<String>) {
        self.report(Severity::Error, span, key, message.into());
    }

    /// Records a warning at `span`.
    pub fn warning(&self, span: &Range<usize>, key: &str, message: impl Into<String>) {
        self.report(Severity::Warning, span, key, message.into());
    }

    /// Number of errors so far.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .borrow()
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    /// All diagnostics, in file order (errors before warnings at the same place).
    pub fn into_diagnostics(self) -> Vec<Diagnostic> {
        let mut all = self.diagnostics.into_inner();
        // The scene file's own first, then those of files it refers to, each in file order.
        let path = self.path;
        all.sort_by(|a, b| {
            (
                a.path != path,
                &a.path,
                a.line,
                a.column,
                a.severity,
                &a.key,
            )
                .cmp(&(
                    b.path != path,
                    &b.path,
                    b.line,
                    b.column,
                    b.severity,
                    &b.key,
                ))
        });
        all.dedup();
        all
    }

    /// Parses the whole file as a TOML table; a syntax error becomes a diagnostic.
    pub fn parse(&self) -> Option<Spanned<DeTable<'s>>> {
        match DeTable::parse(self.text) {
            Ok(table) => Some(table),
            Err(e) => {
                let span = e.span().unwrap_or(0..0);
                // The parser's message is multi-line with its own location; keep its first line.
                let message = e.message().lines().next().unwrap_or("invalid TOML").trim();
                self.error(&span, "", format!("invalid TOML: {message}"));
                None
            }
        }
    }
}

/// A value found under some key.
#[derive(Clone)]
pub struct Value<'c, 's> {
    ctx: &'c Context<'s>,
    value: &'c Spanned<DeValue<'s>>,
    /// Full key path of this value.
    pub key: String,
}

/// A table being read: remembers its key path so that errors can name their key.
pub struct Table<'c, 's> {
    ctx: &'c Context<'s>,
    table: &'c DeTable<'s>,
    span: Range<usize>,
    path: String,
}

fn type_name(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a number",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date-time",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

impl<'c, 's> Value<'c, 's> {
    /// Where the value is in the file.
    pub fn span(&self) -> Range<usize> {
        self.value.span()
    }

    /// Records an error about this value.
    pub fn error(&self, message: impl Into<String>) {
        self.ctx.error(&self.span(), &self.key, message);
    }

    /// Records a warning about this value.
    pub fn warning(&self, message: impl Into<String>) {
        self.ctx.warning(&self.span(), &self.key, message);
    }

    fn wrong_type(&self, expected: &str) {
        self.error(format!(
            "expected {expected}, found {}",
            type_name(self.value.get_ref())
        ));
    }

    /// A finite number (TOML integer or float).
    pub fn number(&self) -> Option<f64> {
        let number = match self.value.get_ref() {
            DeValue::Float(f) => f.as_str().replace('_', "").parse::<f64>().ok(),
            DeValue::Integer(i) => i64::from_str_radix(&i.as_str().replace('_', ""), i.radix())
                .ok()
                .map(|v| v as f64),
            _ => {
                self.wrong_type("a number");
                return None;
            }
        };
        match number {
            Some(v) if v.is_finite() => Some(v),
            Some(_) => {
                self.error("expected a finite number, found infinity or NaN");
                None
            }
            None => {
                self.error("expected a number that fits in 64 bits");
                None
            }
        }
    }

    /// A finite number greater than zero.
    pub fn positive(&self) -> Option<f64> {
        let v = self.number()?;
        if v > 0.0 {
            Some(v)
        } else {
            self.error(format!("expected a positive number, found {}", readable(v)));
            None
        }
    }

    /// A finite number at least zero.
    pub fn non_negative(&self) -> Option<f64> {
        let v = self.number()?;
        if v >= 0.0 {
            Some(v)
        } else {
            self.error(format!("expected a number ≥ 0, found {}", readable(v)));
            None
        }
    }

    /// A whole number at least 1.
    pub fn count(&self) -> Option<u32> {
        let v = self.number()?;
        if v >= 1.0 && v.fract() == 0.0 && v <= u32::MAX as f64 {
            Some(v as u32)
        } else {
            self.error(format!(
                "expected a whole number ≥ 1, found {}",
                readable(v)
            ));
            None
        }
    }

    /// A string without control characters (they would reach the terminal raw in messages
    /// and summaries: an escape sequence in a body's name recoloured it, issue 42).
    pub fn string(&self) -> Option<&'c str> {
        match self.value.get_ref() {
            DeValue::String(s) if s.chars().any(char::is_control) => {
                let shown: String = s.chars().flat_map(char::escape_default).collect();
                self.error(format!(
                    "expected text without control characters (tabs, line breaks, escapes), \
                     found \"{shown}\""
                ));
                None
            }
            DeValue::String(s) => Some(s.as_ref()),
            _ => {
                self.wrong_type("a string");
                None
            }
        }
    }

    /// One of the given strings.
    pub fn choice(&self, choices: &[&str]) -> Option<&'c str> {
        let s = self.string()?;
        if choices.contains(&s) {
            Some(s)
        } else {
            let quoted: Vec<String> = choices.iter().map(|c| format!("\"{c}\"")).collect();
            self.error(format!(
                "expected one of {}, found \"{s}\"",
                quoted.join(", ")
            ));
            None
        }
    }

    /// A boolean.
    pub fn boolean(&self) -> Option<bool> {
        match self.value.get_ref() {
            DeValue::Boolean(b) => Some(*b),
            _ => {
                self.wrong_type("true or false");
                None
            }
        }
    }

    /// The elements of an array.
    pub fn array(&self) -> Option<Vec<Value<'c, 's>>> {
        match self.value.get_ref() {
            DeValue::Array(items) => Some(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, value)| Value {
                        ctx: self.ctx,
                        value,
                        key: format!("{}[{i}]", self.key),
                    })
                    .collect(),
            ),
            _ => {
                self.wrong_type("an array");
                None
            }
        }
    }

    /// An array of exactly `N` finite numbers.
    pub fn numbers<const N: usize>(&self) -> Option<[f64; N]> {
        let items = self.array()?;
        if items.len() != N {
            self.error(format!(
                "expected an array of {N} numbers, found {} element{}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            ));
            return None;
        }
        let mut out = [0.0; N];
        let mut ok = true;
        for (slot, item) in out.iter_mut().zip(&items) {
            match item.number() {
                Some(v) => *slot = v,
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A 3-vector `[x, y, z]`.
    pub fn vec3(&self) -> Option<Vec3> {
        self.numbers::<3>().map(Vec3::from)
    }

    /// A table, with key paths continuing from this value's key.
    pub fn table(&self) -> Option<Table<'c, 's>> {
        match self.value.get_ref() {
            DeValue::Table(table) => Some(Table {
                ctx: self.ctx,
                table,
                span: self.span(),
                path: self.key.clone(),
            }),
            _ => {
                self.wrong_type("a table");
                None
            }
        }
    }

    /// True if the value is a table (without reporting anything).
    pub fn is_table(&self) -> bool {
        matches!(self.value.get_ref(), DeValue::Table(_))
    }

    /// True if the value is a string (without reporting anything).
    pub fn is_string(&self) -> bool {
        matches!(self.value.get_ref(), DeValue::String(_))
    }

    /// True if the value is an array (without reporting anything).
    pub fn is_array(&self) -> bool {
        matches!(self.value.get_ref(), DeValue::Array(_))
    }
}

impl<'c, 's> Table<'c, 's> {
    /// The document's root table.
    pub fn root(ctx: &'c Context<'s>, table: &'c Spanned<DeTable<'s>>) -> Self {
        Self {
            ctx,
            table: table.get_ref(),
            span: table.span(),
            path: String::new(),
        }
    }

    /// Where the table is in the file.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// This table's key path.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Records an error about the table as a whole.
    pub fn error(&self, message: impl Into<String>) {
        self.ctx.error(&self.span, &self.path, message);
    }

    fn child_path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The value under `key`, if present.
    pub fn get(&self, key: &str) -> Option<Value<'c, 's>> {
        let (_, value) = self.table.get_key_value(key)?;
        Some(Value {
            ctx: self.ctx,
            value,
            key: self.child_path(key),
        })
    }

    /// The value under `key`, reporting an error if it is missing.
    pub fn required(&self, key: &str, expected: &str) -> Option<Value<'c, 's>> {
        let value = self.get(key);
        if value.is_none() {
            let where_ = if self.path.is_empty() {
                "at the top level".to_string()
            } else {
                format!("in `{}`", self.path)
            };
            self.ctx.error(
                &self.span,
                &self.child_path(key),
                format!("missing key `{key}` {where_} (expected {expected})"),
            );
        }
        value
    }

    /// Whether `key` is present.
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// A sub-table under `key`, if present.
    pub fn table(&self, key: &str) -> Option<Table<'c, 's>> {
        self.get(key)?.table()
    }

    /// The tables of an array of tables under `key` (each with key path `key[i]`), if present.
    pub fn array_of_tables(&self, key: &str) -> Option<Vec<Table<'c, 's>>> {
        let items = self.get(key)?.array()?;
        Some(items.iter().filter_map(|item| item.table()).collect())
    }

    /// The `(name, value)` pairs of the table (e.g. a table of named materials).
    pub fn entries(&self) -> Vec<(&'c str, Value<'c, 's>)> {
        self.table
            .iter()
            .map(|(k, value)| {
                let name: &'c str = k.get_ref().as_ref();
                (
                    name,
                    Value {
                        ctx: self.ctx,
                        value,
                        key: self.child_path(name),
                    },
                )
            })
            .collect()
    }

    /// Reports every key not in `known`, with the closest known key as a suggestion.
    pub fn reject_unknown(&self, known: &[&str]) {
        for key in self.table.keys() {
            let name = key.get_ref().as_ref();
            if known.contains(&name) {
                continue;
            }
            let suggestion = known
                .iter()
                .map(|k| (edit_distance(name, k), *k))
                .filter(|(d, k)| *d <= 2.max(k.len() / 3))
                .min()
                .map(|(_, k)| format!("; did you mean `{k}`?"))
                .unwrap_or_default();
            let mut listed: Vec<&str> = known.to_vec();
            listed.sort_unstable();
            self.ctx.error(
                &key.span(),
                &self.child_path(name),
                format!(
                    "unknown key `{name}`{suggestion} (known keys here: {})",
                    listed.join(", ")
                ),
            );
        }
    }
}

/// Levenshtein distance, for "did you mean" suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(previous + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str, f: impl FnOnce(&Table)) -> Vec<Diagnostic> {
        let ctx = Context::new(Path::new("s.toml"), text);
        if let Some(doc) = ctx.parse() {
            let root = Table::root(&ctx, &doc);
            f(&root);
        }
        ctx.into_diagnostics()
    }

    #[test]
    fn numbers_vectors_and_locations() {
        let diagnostics = read(
            "a = 1\nb = 2.5e3\nc = [1, 2, 3]\nd = \"x\"\ne = inf\n",
            |t| {
                assert_eq!(t.get("a").unwrap().number(), Some(1.0));
                assert_eq!(t.get("b").unwrap().positive(), Some(2500.0));
                assert_eq!(t.get("c").unwrap().vec3(), Some(Vec3::new(1.0, 2.0, 3.0)));
                assert_eq!(t.get("d").unwrap().number(), None);
                assert_eq!(t.get("e").unwrap().number(), None);
            },
        );
        assert_eq!(diagnostics.len(), 2);
        assert_eq!((diagnostics[0].line, diagnostics[0].column), (4, 5));
        assert!(
            diagnostics[0]
                .message
                .contains("expected a number, found a string")
        );
        assert_eq!(diagnostics[1].line, 5);
        assert!(
            diagnostics[1]
                .to_string()
                .starts_with("s.toml:5:5: error: `e`: ")
        );
    }

    #[test]
    fn unknown_keys_get_suggestions() {
        let diagnostics = read("[body]\ndensty = 3\n", |t| {
            let body = t.table("body").unwrap();
            body.reject_unknown(&["density", "mass"]);
        });
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].key, "body.densty");
        assert_eq!(diagnostics[0].line, 2);
        assert!(diagnostics[0].message.contains("did you mean `density`?"));
    }

    #[test]
    fn syntax_errors_are_located() {
        let diagnostics = read("a = 1\nb = [1, 2\n", |_| {});
        assert_eq!(diagnostics.len(), 1);
        assert!(diagnostics[0].message.starts_with("invalid TOML"));
        assert!(diagnostics[0].line >= 2, "{:?}", diagnostics[0]);
    }

    #[test]
    fn array_of_tables_paths() {
        let diagnostics = read("[[bodies]]\nname = 1\n[[bodies]]\nname = \"b\"\n", |t| {
            for body in t.array_of_tables("bodies").unwrap() {
                body.required("name", "a string").and_then(|v| v.string());
            }
        });
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].key, "bodies[0].name");
    }

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("densty", "density"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("mass", "mass"), 0);
    }
}
