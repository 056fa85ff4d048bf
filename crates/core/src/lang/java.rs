//! The class a Java program starts from, read from its source as Kattis does: the top-level
//! class (interface, enum, record) that declares `static void main`, else the public one, else
//! the first. javac wants a public class in a file of its name, and `java` the class's full name
//! (with its `package`), so the build names the copy `{class}.java` and runs `{main_class}`.

/// The class a source starts from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MainClass {
    /// The `package` the source declares, if any.
    pub package: Option<String>,
    /// The class's simple name (the file name javac wants for a public class).
    pub class: String,
    /// Whether that class declares `static void main` (else it is only the public or first one).
    pub has_main: bool,
}

impl MainClass {
    /// The name `java` starts: `package.Class`, or `Class`.
    pub fn qualified(&self) -> String {
        match &self.package {
            Some(p) => format!("{p}.{}", self.class),
            None => self.class.clone(),
        }
    }
}

/// A token of Java source: what the search needs (comments, strings and characters dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token<'a> {
    Word(&'a str),
    Punct(char),
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let rest = &text[i..];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if let Some(body) = rest.strip_prefix("/*") {
            i += body.find("*/").map_or(rest.len(), |e| e + 4);
        } else if rest.starts_with("\"\"\"") {
            // A text block ends at the next unescaped `"""`.
            // (Bytes: a step may land inside a character; only ASCII bytes matter here.)
            let b = rest.as_bytes();
            let mut j = 3;
            while j < b.len() && !b[j..].starts_with(b"\"\"\"") {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            i += (j + 3).min(rest.len());
        } else if c == b'"' || c == b'\'' {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != c && rest.as_bytes()[j] != b'\n' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += (j + 1).min(rest.len());
        } else if rest
            .chars()
            .next()
            .is_some_and(|ch| ch.is_alphabetic() || ch == '_' || ch == '$')
        {
            let len = rest
                .char_indices()
                .find(|(_, ch)| !(ch.is_alphanumeric() || *ch == '_' || *ch == '$'))
                .map_or(rest.len(), |(k, _)| k);
            out.push(Token::Word(&rest[..len]));
            i += len;
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            out.push(Token::Punct(ch));
            i += ch.len_utf8();
        }
    }
    out
}

/// The class `text` starts from; `None` when it declares no top-level type.
pub fn main_class(text: &str) -> Option<MainClass> {
    let tokens = tokens(text);
    let mut package = None;
    let mut depth = 0usize;
    // Top-level types in order: (name, public, declares main).
    let mut types: Vec<(String, bool, bool)> = Vec::new();
    // Where the current declaration began (after the last `;`, `{` or `}` at its level).
    let mut start = 0;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => {
                depth += 1;
                start = i + 1;
            }
            Token::Punct('}') => {
                depth = depth.saturating_sub(1);
                start = i + 1;
            }
            Token::Punct(';') => start = i + 1,
            Token::Word("package") if depth == 0 && package.is_none() => {
                let mut name = String::new();
                let mut j = i + 1;
                while let Some(t) = tokens.get(j) {
                    match t {
                        Token::Word(w) => name.push_str(w),
                        Token::Punct('.') => name.push('.'),
                        _ => break,
                    }
                    j += 1;
                }
                if !name.is_empty() {
                    package = Some(name);
                }
                i = j;
                continue;
            }
            Token::Word("class" | "interface" | "enum" | "record") if depth == 0 => {
                // `@interface` declares an annotation type: a type too.
                if let Some(Token::Word(name)) = tokens.get(i + 1) {
                    let public = tokens[start..i].contains(&Token::Word("public"));
                    types.push((name.to_string(), public, false));
                    i += 2;
                    continue;
                }
            }
            Token::Word("main") if depth == 1 => {
                let call = tokens.get(i + 1) == Some(&Token::Punct('('));
                let before = &tokens[start..i];
                if call
                    && before.last() == Some(&Token::Word("void"))
                    && before.contains(&Token::Word("static"))
                {
                    if let Some(t) = types.last_mut() {
                        t.2 = true;
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    let (class, has_main) = types
        .iter()
        .find(|t| t.2)
        .or_else(|| types.iter().find(|t| t.1))
        .or(types.first())
        .map(|t| (t.0.clone(), t.2))?;
    Some(MainClass {
        package,
        class,
        has_main,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> Option<(String, bool)> {
        main_class(text).map(|m| (m.qualified(), m.has_main))
    }

    #[test]
    fn the_class_with_main_wins() {
        let text = r#"
import java.util.*;
class Helper { static int twice(int x) { return 2 * x; } }
public class Solution {
    public static void main(String[] args) { System.out.println(Helper.twice(2)); }
}
"#;
        assert_eq!(class(text), Some(("Solution".into(), true)));
        // Not public, with `final` and annotations among the modifiers, after another class.
        let text = "class A {}\nfinal class Parity {\n  @SuppressWarnings(\"x\")\n  static public void main(final String... a) {}\n}\n";
        assert_eq!(class(text), Some(("Parity".into(), true)));
    }

    #[test]
    fn comments_strings_and_nested_types_do_not_count() {
        let text = r#"
// class Fake { public static void main(String[] a) {} }
/* class Fake2 { static void main(String[] a) {} } */
public class Real {
    static String s = "class Str { static void main(String[] a) {} }";
    static char c = '{';
    static String block = """
        } class Block { static void main(String[] a) {} }
        """;
    static class Inner { public static void main(String[] a) {} }
    void main(int x) {}
    public static void main(String[] args) {}
}
"#;
        assert_eq!(class(text), Some(("Real".into(), true)));
        // A nested main alone does not make its outer class the main one.
        let text =
            "public class Outer { static class Inner { public static void main(String[] a) {} } }";
        assert_eq!(class(text), Some(("Outer".into(), false)));
    }

    #[test]
    fn without_main_the_public_then_the_first_class() {
        assert_eq!(
            class("class A {} public class B {} class C {}"),
            Some(("B".into(), false))
        );
        assert_eq!(
            class("interface A {} enum B { X }"),
            Some(("A".into(), false))
        );
        assert_eq!(class("// nothing\n"), None);
        assert_eq!(class(""), None);
    }

    #[test]
    fn a_package_qualifies_the_name() {
        let m = main_class(
            "package contest.parity;\n\npublic class Main { public static void main(String[] a) {} }",
        )
        .unwrap();
        assert_eq!(m.class, "Main");
        assert_eq!(m.package.as_deref(), Some("contest.parity"));
        assert_eq!(m.qualified(), "contest.parity.Main");
    }

    #[test]
    fn records_enums_and_interfaces_may_hold_main() {
        assert_eq!(
            class("record P(int x) { public static void main(String[] a) {} }"),
            Some(("P".into(), true))
        );
        assert_eq!(
            class("class X {} interface Run { static void main(String[] a) {} }"),
            Some(("Run".into(), true))
        );
        // Non-ASCII text in strings and text blocks, after escapes too.
        assert_eq!(
            class("class A { String s = \"\\é\"; String t = \"\"\"\n  \\é ☃ \"\"\"; }\npublic class B { static void main(String[] a) {} }"),
            Some(("B".into(), true))
        );
        // A byte-order mark, other non-ASCII text: no hang, names still found.
        assert_eq!(
            class("\u{feff}public class Ünïcode { public static void main(String[] a) {} } // ☃"),
            Some(("Ünïcode".into(), true))
        );
        // Every prefix of a source full of traps (cut anywhere): no panic, no hang.
        let tricky = "package p;\u{feff}/* é */ class A { char c = '\\''; String s = \"\\\"é\\\\\"; String t = \"\"\"\n\\\"\"\"é☃\"\"\"; // ☃\n public static void main(String[] a) {} }";
        for (at, _) in tricky.char_indices() {
            let _ = main_class(&tricky[..at]);
        }
        assert_eq!(class(tricky), Some(("p.A".into(), true)));
        // Broken source: whatever is found, no panic.
        assert_eq!(class("public class"), None);
        assert_eq!(class("class A { \"unterminated"), Some(("A".into(), false)));
    }
}
