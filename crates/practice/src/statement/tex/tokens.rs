//! TeX's tokens as the converter reads them: commands, braces, scripts, numbers, letters,
//! other characters, alignment and rows, spaces.

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
    /// `\name` (letters) or `\c` (one other character).
    Command(String),
    Open,
    Close,
    Sup,
    Sub,
    /// Digits, possibly with one decimal point inside.
    Number(String),
    Letter(char),
    /// Any other character: an operator or punctuation.
    Other(char),
    /// `&`: the next cell of an environment's row (spacing elsewhere).
    Align,
    /// `\\`: the next row of an environment (spacing elsewhere).
    NewRow,
    /// Spaces: ignored in math, kept in `\text{…}`.
    Space,
}

pub(super) fn tokenize(tex: &str) -> Vec<Token> {
    let chars: Vec<char> = tex.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => {
                let start = i;
                while i < chars.len() && chars[i].is_ascii_alphabetic() {
                    i += 1;
                }
                if i == start {
                    match chars.get(i) {
                        Some('\\') => {
                            i += 1;
                            tokens.push(Token::NewRow);
                        }
                        Some(&other) => {
                            i += 1;
                            tokens.push(Token::Command(other.to_string()));
                        }
                        None => tokens.push(Token::Other('\\')),
                    }
                } else {
                    tokens.push(Token::Command(chars[start..i].iter().collect()));
                }
            }
            '{' => tokens.push(Token::Open),
            '}' => tokens.push(Token::Close),
            '^' => tokens.push(Token::Sup),
            '_' => tokens.push(Token::Sub),
            '&' => tokens.push(Token::Align),
            c if c.is_whitespace() => {
                while i < chars.len() && chars[i].is_whitespace() {
                    i += 1;
                }
                tokens.push(Token::Space);
            }
            c if c.is_ascii_digit() => {
                let mut number = c.to_string();
                while i < chars.len() {
                    let d = chars[i];
                    let decimal_point = d == '.'
                        && !number.contains('.')
                        && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit());
                    if d.is_ascii_digit() || decimal_point {
                        number.push(d);
                        i += 1;
                    } else {
                        break;
                    }
                }
                tokens.push(Token::Number(number));
            }
            c if c.is_alphabetic() => tokens.push(Token::Letter(c)),
            c => tokens.push(Token::Other(c)),
        }
    }
    tokens
}

pub(super) fn token_text(token: &Token) -> String {
    match token {
        Token::Command(name) if name.len() == 1 && !name.chars().all(char::is_alphabetic) => {
            // `\{`, `\%`, `\ ` in text mode are the character itself.
            name.clone()
        }
        Token::Command(name) => format!("\\{name}"),
        Token::Open => "{".into(),
        Token::Close => "}".into(),
        Token::Sup => "^".into(),
        Token::Sub => "_".into(),
        Token::Number(n) => n.clone(),
        Token::Letter(c) | Token::Other(c) => c.to_string(),
        Token::Align | Token::NewRow | Token::Space => " ".into(),
    }
}
