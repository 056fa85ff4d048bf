//! TeX math to MathML: a recursive-descent converter over the tokens of `tokens.rs`, with the
//! commands it knows as symbols in `symbols.rs`. Every piece of text goes through [`escape`];
//! an unknown command is shown literally (class `tex-unknown`); groups nested deeper than
//! `MAX_DEPTH` are shown as TeX text.

mod symbols;
mod tokens;

use super::escape;
use symbols::{big_operator, identifier, space, symbol_operator, FUNCTIONS};
use tokens::{token_text, tokenize, Token};

/// TeX math as a `<math>` element (`display="block"` for `$$…$$`), the source kept in an
/// annotation so that copying the formula gives its TeX.
pub fn tex_to_mathml(tex: &str, display: bool) -> String {
    let tokens = tokenize(tex);
    let mut parser = TexParser {
        tokens,
        at: 0,
        depth: 0,
    };
    let body = parser.sequence(Stop::End);
    let display = if display { " display=\"block\"" } else { "" };
    format!(
        "<math{display}><semantics><mrow>{body}</mrow>\
         <annotation encoding=\"application/x-tex\">{}</annotation></semantics></math>",
        escape(tex.trim())
    )
}

#[derive(Clone, Copy, PartialEq)]
enum Stop {
    End,
    /// A `}` closes the group.
    Close,
    /// `]` closes an optional argument (`\sqrt[3]{x}`).
    Bracket,
    /// `\right` closes a `\left`.
    Right,
    /// A cell of an environment ends before `&`, `\\` or `\end` (not consumed).
    Cell,
}

/// Groups nested deeper than this are shown as their TeX text: the parser recurses per group,
/// and a statement (untrusted) must not be able to overflow the server's stack.
const MAX_DEPTH: usize = 64;

struct TexParser {
    tokens: Vec<Token>,
    at: usize,
    /// Groups open around the current position.
    depth: usize,
}

/// What an atom is, for placing its scripts: big operators take theirs under and over.
#[derive(PartialEq)]
enum Kind {
    Ordinary,
    BigOperator,
}

impl TexParser {
    /// The next token that is not a space (spaces are skipped).
    fn peek(&mut self) -> Option<&Token> {
        while self.tokens.get(self.at) == Some(&Token::Space) {
            self.at += 1;
        }
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<Token> {
        self.peek();
        let token = self.tokens.get(self.at).cloned();
        self.at += 1;
        token
    }

    /// Atoms with their scripts up to `stop` (consumed) or the end.
    fn sequence(&mut self, stop: Stop) -> String {
        if self.depth >= MAX_DEPTH {
            return format!("<mtext>{}</mtext>", escape(&self.raw_until(stop)));
        }
        self.depth += 1;
        let out = self.sequence_inside(stop);
        self.depth -= 1;
        out
    }

    /// The TeX text up to `stop` (consumed), groups balanced, without converting it.
    fn raw_until(&mut self, stop: Stop) -> String {
        let mut text = String::new();
        let mut open = 0usize;
        while let Some(token) = self.tokens.get(self.at).cloned() {
            self.at += 1;
            match (&token, stop) {
                (Token::Open, _) => open += 1,
                (Token::Close, Stop::Close) if open == 0 => return text,
                (Token::Close, _) => open = open.saturating_sub(1),
                (Token::Other(']'), Stop::Bracket) if open == 0 => return text,
                (Token::Command(name), Stop::Right) if open == 0 && name == "right" => return text,
                (Token::Align | Token::NewRow, Stop::Cell) if open == 0 => {
                    self.at -= 1;
                    return text;
                }
                (Token::Command(name), Stop::Cell) if open == 0 && name == "end" => {
                    self.at -= 1;
                    return text;
                }
                _ => {}
            }
            text.push_str(&token_text(&token));
        }
        text
    }

    fn sequence_inside(&mut self, stop: Stop) -> String {
        let mut out = String::new();
        loop {
            match (self.peek(), stop) {
                (None, _) => return out,
                (Some(Token::Close), Stop::Close) => {
                    self.at += 1;
                    return out;
                }
                (Some(Token::Other(']')), Stop::Bracket) => {
                    self.at += 1;
                    return out;
                }
                (Some(Token::Command(name)), Stop::Right) if name == "right" => {
                    self.at += 1;
                    return out;
                }
                (Some(Token::Align | Token::NewRow), Stop::Cell) => return out,
                (Some(Token::Command(name)), Stop::Cell) if name == "end" => return out,
                (Some(Token::Close), _) => {
                    // An unmatched `}`: shown, not fatal.
                    self.at += 1;
                    out.push_str("<mo>}</mo>");
                }
                _ => out.push_str(&self.scripted()),
            }
        }
    }

    /// One atom and its `^`/`_` scripts.
    fn scripted(&mut self) -> String {
        let (base, kind) = match self.peek() {
            // A script with nothing before it (`^2` at the start) has an empty base.
            Some(Token::Sup | Token::Sub) => ("<mrow></mrow>".to_string(), Kind::Ordinary),
            _ => self.atom(),
        };
        let mut sup = None;
        let mut sub = None;
        loop {
            match self.peek() {
                Some(Token::Sup) if sup.is_none() => {
                    self.at += 1;
                    sup = Some(self.argument());
                }
                Some(Token::Sub) if sub.is_none() => {
                    self.at += 1;
                    sub = Some(self.argument());
                }
                Some(Token::Other('\'')) if sup.is_none() => {
                    let mut primes = String::new();
                    while self.peek() == Some(&Token::Other('\'')) {
                        self.at += 1;
                        primes.push('′');
                    }
                    sup = Some(format!("<mo>{primes}</mo>"));
                }
                _ => break,
            }
        }
        let (under, over, both) = if kind == Kind::BigOperator {
            ("munder", "mover", "munderover")
        } else {
            ("msub", "msup", "msubsup")
        };
        match (sub, sup) {
            (None, None) => base,
            (Some(sub), None) => format!("<{under}>{base}{sub}</{under}>"),
            (None, Some(sup)) => format!("<{over}>{base}{sup}</{over}>"),
            (Some(sub), Some(sup)) => format!("<{both}>{base}{sub}{sup}</{both}>"),
        }
    }

    /// A command's argument or a script: a `{…}` group or one atom, always one element.
    fn argument(&mut self) -> String {
        match self.peek() {
            Some(Token::Open) => {
                self.at += 1;
                format!("<mrow>{}</mrow>", self.sequence(Stop::Close))
            }
            None => "<mrow></mrow>".to_string(),
            _ => self.atom().0,
        }
    }

    /// The raw text of a `{…}` argument (for `\text`), or of the next token.
    fn text_argument(&mut self) -> String {
        if self.peek() != Some(&Token::Open) {
            return self.next().map(|t| token_text(&t)).unwrap_or_default();
        }
        self.at += 1;
        let mut depth = 0;
        let mut text = String::new();
        while let Some(token) = self.tokens.get(self.at).cloned() {
            self.at += 1;
            match token {
                Token::Open => depth += 1,
                Token::Close if depth == 0 => break,
                Token::Close => depth -= 1,
                _ => {}
            }
            text.push_str(&token_text(&token));
        }
        text
    }

    fn atom(&mut self) -> (String, Kind) {
        let Some(token) = self.next() else {
            return (String::new(), Kind::Ordinary);
        };
        let element = match token {
            Token::Open => format!("<mrow>{}</mrow>", self.sequence(Stop::Close)),
            Token::Close => "<mo>}</mo>".to_string(),
            Token::Sup | Token::Sub => String::new(),
            Token::Number(n) => format!("<mn>{n}</mn>"),
            Token::Letter(c) => format!("<mi>{}</mi>", escape(&c.to_string())),
            Token::Align | Token::NewRow => "<mspace width=\"1em\"></mspace>".to_string(),
            Token::Space => String::new(),
            Token::Other(c) => operator(c),
            Token::Command(name) => return self.command(&name),
        };
        (element, Kind::Ordinary)
    }

    fn command(&mut self, name: &str) -> (String, Kind) {
        if let Some(symbol) = big_operator(name) {
            return (format!("<mo>{symbol}</mo>"), Kind::BigOperator);
        }
        if matches!(name, "lim" | "max" | "min" | "sup" | "inf") {
            return (format!("<mo>{name}</mo>"), Kind::BigOperator);
        }
        let element = match name {
            "frac" | "dfrac" | "tfrac" => {
                let numerator = self.argument();
                let denominator = self.argument();
                format!("<mfrac>{numerator}{denominator}</mfrac>")
            }
            "binom" | "dbinom" | "tbinom" => {
                let n = self.argument();
                let k = self.argument();
                format!(
                    "<mrow><mo>(</mo><mfrac linethickness=\"0\">{n}{k}</mfrac><mo>)</mo></mrow>"
                )
            }
            "sqrt" => {
                if self.peek() == Some(&Token::Other('[')) {
                    self.at += 1;
                    let index = self.sequence(Stop::Bracket);
                    let radicand = self.argument();
                    format!("<mroot>{radicand}<mrow>{index}</mrow></mroot>")
                } else {
                    format!("<msqrt>{}</msqrt>", self.argument())
                }
            }
            "text" | "textrm" | "mbox" | "textnormal" => {
                format!("<mtext>{}</mtext>", escape(&self.text_argument()))
            }
            "textbf" => format!(
                "<mtext mathvariant=\"bold\">{}</mtext>",
                escape(&self.text_argument())
            ),
            "textit" => format!(
                "<mtext mathvariant=\"italic\">{}</mtext>",
                escape(&self.text_argument())
            ),
            "texttt" => format!(
                "<mtext mathvariant=\"monospace\">{}</mtext>",
                escape(&self.text_argument())
            ),
            "mathrm" | "operatorname" => format!(
                "<mi mathvariant=\"normal\">{}</mi>",
                escape(&self.text_argument())
            ),
            "mathbf" => variant(self.argument(), "bold"),
            "mathit" => variant(self.argument(), "italic"),
            "mathtt" => variant(self.argument(), "monospace"),
            "mathbb" => variant(self.argument(), "double-struck"),
            "mathcal" => variant(self.argument(), "script"),
            "overline" | "bar" => accent(self.argument(), "‾"),
            "hat" | "widehat" => accent(self.argument(), "^"),
            "tilde" | "widetilde" => accent(self.argument(), "~"),
            "vec" => accent(self.argument(), "→"),
            "dot" => accent(self.argument(), "˙"),
            "underline" => format!(
                "<munder accentunder=\"true\">{}<mo>_</mo></munder>",
                self.argument()
            ),
            "left" => {
                let open = self.delimiter();
                let inner = self.sequence(Stop::Right);
                let close = self.delimiter();
                format!("<mrow>{open}{inner}{close}</mrow>")
            }
            "begin" => self.environment(),
            // A lone `\right` (no `\left`): its delimiter still shows.
            "right" => self.delimiter(),
            "big" | "Big" | "bigg" | "Bigg" | "bigl" | "bigr" | "Bigl" | "Bigr"
            | "displaystyle" | "textstyle" | "limits" | "nolimits" => String::new(),
            "not" => self.negation(),
            "bmod" | "mod" => "<mo lspace=\"0.3em\" rspace=\"0.3em\">mod</mo>".to_string(),
            "pmod" => format!(
                "<mrow><mo>(</mo><mo rspace=\"0.3em\">mod</mo>{}<mo>)</mo></mrow>",
                self.argument()
            ),
            _ => {
                if let Some(width) = space(name) {
                    format!("<mspace width=\"{width}\"></mspace>")
                } else if let Some(symbol) = identifier(name) {
                    format!("<mi>{symbol}</mi>")
                } else if let Some(symbol) = symbol_operator(name) {
                    format!("<mo>{}</mo>", escape(symbol))
                } else if FUNCTIONS.contains(&name) {
                    format!("<mi>{name}</mi>")
                } else {
                    format!(
                        "<mtext class=\"tex-unknown\">{}</mtext>",
                        escape(&format!("\\{name}"))
                    )
                }
            }
        };
        (element, Kind::Ordinary)
    }

    /// What follows `\not`: the negated relation (`≠`, `∉`, …), else the symbol with a combining
    /// long solidus over it.
    fn negation(&mut self) -> String {
        match self.next() {
            Some(Token::Other('=')) => "<mo>≠</mo>".to_string(),
            Some(Token::Other('<')) => "<mo>≮</mo>".to_string(),
            Some(Token::Other('>')) => "<mo>≯</mo>".to_string(),
            Some(Token::Command(next)) => match next.as_str() {
                "in" => "<mo>∉</mo>".to_string(),
                "subset" => "<mo>⊄</mo>".to_string(),
                "equiv" => "<mo>≢</mo>".to_string(),
                "le" | "leq" => "<mo>≰</mo>".to_string(),
                "ge" | "geq" => "<mo>≱</mo>".to_string(),
                other => match symbol_operator(other) {
                    // A combining long solidus over the symbol.
                    Some(symbol) => format!("<mo>{}\u{338}</mo>", escape(symbol)),
                    None => format!(
                        "<mtext class=\"tex-unknown\">{}</mtext>",
                        escape(&format!("\\not\\{other}"))
                    ),
                },
            },
            Some(other) => format!("<mo>{}\u{338}</mo>", escape(&token_text(&other))),
            None => String::new(),
        }
    }

    /// `\begin{name} a & b \\ c & d \end{name}` as a table: `cases` with a brace on the left,
    /// the matrices with their delimiters, any other name (`array`, `aligned`, `matrix`…) bare.
    fn environment(&mut self) -> String {
        let name = self.text_argument();
        if name == "array" {
            // The column specification (`{lcr}`) only aligns.
            self.text_argument();
        }
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut row = Vec::new();
        loop {
            row.push(self.sequence(Stop::Cell));
            match self.next() {
                Some(Token::Align) => {}
                Some(Token::NewRow) => rows.push(std::mem::take(&mut row)),
                _ => {
                    // `\end{…}` or the end of the formula.
                    self.text_argument();
                    break;
                }
            }
        }
        // `\\` before `\end` leaves an empty last row.
        if !(row.len() == 1 && row[0].is_empty()) {
            rows.push(row);
        }
        let align = if name == "cases" {
            " columnalign=\"left left\""
        } else {
            ""
        };
        let mut table = format!("<mtable{align}>");
        for row in rows {
            table.push_str("<mtr>");
            for cell in row {
                table.push_str(&format!("<mtd><mrow>{cell}</mrow></mtd>"));
            }
            table.push_str("</mtr>");
        }
        table.push_str("</mtable>");
        let (open, close) = match name.as_str() {
            "cases" => ("{", ""),
            "pmatrix" => ("(", ")"),
            "bmatrix" => ("[", "]"),
            "Bmatrix" => ("{", "}"),
            "vmatrix" => ("|", "|"),
            "Vmatrix" => ("‖", "‖"),
            _ => ("", ""),
        };
        let fence = |d: &str| {
            if d.is_empty() {
                String::new()
            } else {
                format!("<mo stretchy=\"true\">{d}</mo>")
            }
        };
        format!("<mrow>{}{table}{}</mrow>", fence(open), fence(close))
    }

    /// The delimiter after `\left` or `\right` (`.` is none).
    fn delimiter(&mut self) -> String {
        match self.next() {
            Some(Token::Other('.')) | None => String::new(),
            Some(Token::Other(c)) => {
                format!("<mo stretchy=\"true\">{}</mo>", escape(&c.to_string()))
            }
            Some(Token::Command(name)) => match symbol_operator(&name) {
                Some(symbol) => format!("<mo stretchy=\"true\">{}</mo>", escape(symbol)),
                None => format!(
                    "<mtext class=\"tex-unknown\">{}</mtext>",
                    escape(&format!("\\{name}"))
                ),
            },
            Some(other) => format!("<mo>{}</mo>", escape(&token_text(&other))),
        }
    }
}

fn operator(c: char) -> String {
    match c {
        '-' => "<mo>−</mo>".to_string(),
        '*' => "<mo>∗</mo>".to_string(),
        '~' => "<mspace width=\"0.3em\"></mspace>".to_string(),
        c => format!("<mo>{}</mo>", escape(&c.to_string())),
    }
}

fn variant(inner: String, variant: &str) -> String {
    format!("<mstyle mathvariant=\"{variant}\">{inner}</mstyle>")
}

fn accent(base: String, mark: &str) -> String {
    format!("<mover accent=\"true\">{base}<mo>{mark}</mo></mover>")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MathML body of one formula, without the wrapper and the annotation.
    fn body(tex: &str) -> String {
        let math = tex_to_mathml(tex, false);
        let start = math.find("<semantics><mrow>").unwrap() + "<semantics><mrow>".len();
        let end = math.find("</mrow><annotation").unwrap();
        math[start..end].to_string()
    }

    #[test]
    fn relations_and_lists_from_the_snake_statement() {
        assert_eq!(
            body(r"1 \le n, m \le 15"),
            "<mn>1</mn><mo>≤</mo><mi>n</mi><mo>,</mo><mi>m</mi><mo>≤</mo><mn>15</mn>"
        );
    }

    #[test]
    fn products_powers_and_decimals_from_the_snake_notes() {
        assert_eq!(
            body(r"15 \cdot 15 \cdot 4^8 \approx 1.5 \cdot 10^7"),
            "<mn>15</mn><mo>⋅</mo><mn>15</mn><mo>⋅</mo><msup><mn>4</mn><mn>8</mn></msup>\
             <mo>≈</mo><mn>1.5</mn><mo>⋅</mo><msup><mn>10</mn><mn>7</mn></msup>"
        );
    }

    #[test]
    fn binomial_from_the_board_notes() {
        assert_eq!(
            body(r"\binom{16}{8} = 12870"),
            "<mrow><mo>(</mo><mfrac linethickness=\"0\"><mrow><mn>16</mn></mrow>\
             <mrow><mn>8</mn></mrow></mfrac><mo>)</mo></mrow><mo>=</mo><mn>12870</mn>"
        );
    }

    #[test]
    fn escaped_space_and_not_equal_from_huarong_road() {
        assert_eq!(
            body(r"EX\ EY"),
            "<mi>E</mi><mi>X</mi><mspace width=\"0.3em\"></mspace><mi>E</mi><mi>Y</mi>"
        );
        assert!(body(r"(EX, EY) \ne (SX, SY)").contains("<mo>≠</mo>"));
        assert!(body(r"(nm)^2").ends_with("<msup><mo>)</mo><mn>2</mn></msup>"));
    }

    #[test]
    fn fractions_roots_scripts_and_sums() {
        assert_eq!(
            body(r"\frac{a+1}{2}"),
            "<mfrac><mrow><mi>a</mi><mo>+</mo><mn>1</mn></mrow><mrow><mn>2</mn></mrow></mfrac>"
        );
        assert_eq!(
            body(r"\sum_{i=1}^{n} a_i"),
            "<munderover><mo>∑</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow>\
             <mrow><mi>n</mi></mrow></munderover><msub><mi>a</mi><mi>i</mi></msub>"
        );
        assert_eq!(body(r"\sqrt{x}"), "<msqrt><mrow><mi>x</mi></mrow></msqrt>");
        assert_eq!(
            body(r"\sqrt[3]{x}"),
            "<mroot><mrow><mi>x</mi></mrow><mrow><mn>3</mn></mrow></mroot>"
        );
        assert_eq!(
            body("x_i^2"),
            "<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup>"
        );
    }

    #[test]
    fn text_greek_sets_and_floors() {
        assert_eq!(
            body(r"\text{if } \alpha < \beta"),
            "<mtext>if </mtext><mi>α</mi><mo>&lt;</mo><mi>β</mi>"
        );
        assert_eq!(
            body(r"\{1, \ldots, n\}"),
            "<mo>{</mo><mn>1</mn><mo>,</mo><mo>…</mo><mo>,</mo><mi>n</mi><mo>}</mo>"
        );
        assert_eq!(
            body(r"\lfloor n/2 \rfloor"),
            "<mo>⌊</mo><mi>n</mi><mo>/</mo><mn>2</mn><mo>⌋</mo>"
        );
        assert_eq!(
            body(r"\left( x \right)"),
            "<mrow><mo stretchy=\"true\">(</mo><mi>x</mi><mo stretchy=\"true\">)</mo></mrow>"
        );
        assert_eq!(
            body(r"10^{-9}"),
            "<msup><mn>10</mn><mrow><mo>−</mo><mn>9</mn></mrow></msup>"
        );
    }

    #[test]
    fn cases_and_matrices_become_tables() {
        assert_eq!(
            body(r"f(n) = \begin{cases} 1 & n = 0 \\ n f(n-1) & \text{otherwise} \end{cases}"),
            "<mi>f</mi><mo>(</mo><mi>n</mi><mo>)</mo><mo>=</mo><mrow><mo stretchy=\"true\">{</mo>\
             <mtable columnalign=\"left left\"><mtr><mtd><mrow><mn>1</mn></mrow></mtd>\
             <mtd><mrow><mi>n</mi><mo>=</mo><mn>0</mn></mrow></mtd></mtr><mtr><mtd><mrow><mi>n</mi>\
             <mi>f</mi><mo>(</mo><mi>n</mi><mo>−</mo><mn>1</mn><mo>)</mo></mrow></mtd>\
             <mtd><mrow><mtext>otherwise</mtext></mrow></mtd></mtr></mtable></mrow>"
        );
        assert_eq!(
            body(r"\begin{pmatrix} a & b \\ c & d \\ \end{pmatrix}"),
            "<mrow><mo stretchy=\"true\">(</mo><mtable><mtr><mtd><mrow><mi>a</mi></mrow></mtd>\
             <mtd><mrow><mi>b</mi></mrow></mtd></mtr><mtr><mtd><mrow><mi>c</mi></mrow></mtd>\
             <mtd><mrow><mi>d</mi></mrow></mtd></mtr></mtable><mo stretchy=\"true\">)</mo></mrow>"
        );
        assert!(body(r"\begin{array}{lr} x & y \end{array}").contains("<mtable><mtr>"));
        // Unclosed: the table ends with the formula.
        assert!(body(r"\begin{cases} x & y").ends_with("</mtable></mrow>"));
        // Outside an environment `&` and `\\` are spacing.
        assert_eq!(
            body(r"a \\ b"),
            "<mi>a</mi><mspace width=\"1em\"></mspace><mi>b</mi>"
        );
    }

    #[test]
    fn negated_relations() {
        assert_eq!(body(r"a \not= b"), "<mi>a</mi><mo>≠</mo><mi>b</mi>");
        assert_eq!(body(r"x \not\in S"), "<mi>x</mi><mo>∉</mo><mi>S</mi>");
        assert_eq!(body(r"\not\sim"), "<mo>∼\u{338}</mo>");
    }

    #[test]
    fn unknown_commands_are_shown_literally() {
        assert_eq!(
            body(r"\foo x"),
            "<mtext class=\"tex-unknown\">\\foo</mtext><mi>x</mi>"
        );
    }

    #[test]
    fn broken_tex_never_panics_and_stays_escaped() {
        for tex in [
            "{",
            "}",
            "^",
            "_",
            "x^",
            r"\frac{1}",
            r"\sqrt[",
            r"\left(",
            r"\right)",
            r"\",
            "a}}b",
            r"\text{<script>}",
            "<b>&",
            "x''",
            r"\left.",
            "{{{{",
        ] {
            let math = tex_to_mathml(tex, true);
            assert!(
                math.starts_with("<math display=\"block\">"),
                "{tex}: {math}"
            );
            assert!(!math.contains("<script"), "{tex}: {math}");
            assert!(!math.contains("<b>"), "{tex}: {math}");
        }
        assert!(body(r"\text{<script>}").contains("<mtext>&lt;script&gt;</mtext>"));
    }

    #[test]
    fn deep_nesting_is_cut_off_not_a_stack_overflow() {
        for tex in [
            "{".repeat(200_000),
            format!("{}x{}", "{".repeat(100_000), "}".repeat(100_000)),
            r"\sqrt{".repeat(50_000),
            r"\left(".repeat(50_000),
            "x^{".repeat(50_000),
            r"\begin{cases}".repeat(50_000),
            r"\not".repeat(50_000),
        ] {
            let math = tex_to_mathml(&tex, false);
            assert!(math.starts_with("<math>") && math.ends_with("</math>"));
        }
        // Markdown nesting is pulldown-cmark's, which does not recurse per level.
        for markdown in [
            format!("{}x", "> ".repeat(100_000)),
            format!("{}x", "- ".repeat(100_000)),
            format!("{}x{}", "[".repeat(100_000), "]".repeat(100_000)),
            format!("{}x{}", "*".repeat(100_000), "*".repeat(100_000)),
            "$".repeat(100_000),
        ] {
            assert!(!crate::statement::render(&markdown).is_empty());
        }
        // Within the limit nothing is cut.
        let nested = format!("{}x{}", "{".repeat(10), "}".repeat(10));
        assert_eq!(
            body(&nested),
            format!("{}<mi>x</mi>{}", "<mrow>".repeat(10), "</mrow>".repeat(10))
        );
    }
}
