//! Bearer tokens: organisers may do everything, submitters may submit and read their own
//! submissions. `--tokens FILE` holds `ROLE TOKEN [NAME]` lines; tokens are kept only as their
//! SHA-256, so a lookup compares hashes, not the secrets.

use super::{ApiError, Shared};
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Organiser,
    Submitter,
}

/// Who is calling: a token's role and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub role: Role,
    pub name: String,
}

impl Caller {
    /// Refuses a submitter with 403 and the reason.
    pub fn organiser(&self, what: &str) -> Result<(), ApiError> {
        match self.role {
            Role::Organiser => Ok(()),
            Role::Submitter => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "{what} needs an organiser token; {}'s is a submitter token",
                    self.name
                ),
            )),
        }
    }
}

/// The tokens the server accepts, by their hash.
#[derive(Debug, Default)]
pub struct Tokens(HashMap<String, Caller>);

impl Tokens {
    /// Parses a tokens file's text (`ROLE TOKEN [NAME]` lines, `#` comments); errors name the
    /// line. A NAME left out is the role and the line number.
    pub fn parse(text: &str, file: &str) -> Result<Tokens, String> {
        let mut tokens = Tokens::default();
        for (i, line) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let at = |why: &str| {
                format!("{file}:{line_no}: {why}\n  hint: each line is ROLE TOKEN [NAME], ROLE organiser or submitter")
            };
            let role = match words[0] {
                "organiser" | "organizer" => Role::Organiser,
                "submitter" => Role::Submitter,
                other => return Err(at(&format!("`{other}` is not a role"))),
            };
            let Some(token) = words.get(1) else {
                return Err(at("the token is missing"));
            };
            if token.len() < 16 {
                return Err(at("a token needs at least 16 characters"));
            }
            if words.len() > 3 {
                return Err(at("a NAME is one word"));
            }
            let name = words
                .get(2)
                .map(|n| n.to_string())
                .unwrap_or_else(|| format!("{}-{line_no}", words[0]));
            if tokens
                .0
                .insert(crate::store::hash(token.as_bytes()), Caller { role, name })
                .is_some()
            {
                return Err(at("this token is already on an earlier line"));
            }
        }
        Ok(tokens)
    }

    /// One organiser token, `token`.
    pub fn organiser(token: &str) -> Tokens {
        let mut tokens = Tokens::default();
        tokens.0.insert(
            crate::store::hash(token.as_bytes()),
            Caller {
                role: Role::Organiser,
                name: "organiser".into(),
            },
        );
        tokens
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn caller(&self, token: &str) -> Option<&Caller> {
        self.0.get(&crate::store::hash(token.as_bytes()))
    }
}

/// A random token: 32 hex digits from the kernel's generator.
pub fn random_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl FromRequestParts<Shared> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &Shared) -> Result<Caller, ApiError> {
        let unauthorised = |why: &str| ApiError::new(StatusCode::UNAUTHORIZED, why.to_string());
        let value = parts.headers.get(header::AUTHORIZATION).ok_or_else(|| {
            unauthorised("no Authorization header; send `Authorization: Bearer TOKEN`")
        })?;
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .ok_or_else(|| unauthorised("the Authorization header is not `Bearer TOKEN`"))?;
        state
            .tokens
            .caller(token)
            .cloned()
            .ok_or_else(|| unauthorised("this token is not one the server accepts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tokens_file_names_roles_and_names_and_refuses_bad_lines() {
        let tokens = Tokens::parse(
            "# jury\norganiser 0123456789abcdef0123 alice\nsubmitter fedcba9876543210fedc\n",
            "t",
        )
        .unwrap();
        assert_eq!(
            tokens.caller("0123456789abcdef0123"),
            Some(&Caller {
                role: Role::Organiser,
                name: "alice".into()
            })
        );
        assert_eq!(
            tokens.caller("fedcba9876543210fedc"),
            Some(&Caller {
                role: Role::Submitter,
                name: "submitter-3".into()
            })
        );
        assert_eq!(tokens.caller("nope"), None);
        let err = Tokens::parse("\nadmin 0123456789abcdef0123\n", "t").unwrap_err();
        assert!(err.starts_with("t:2: `admin` is not a role"), "{err}");
        let err = Tokens::parse("submitter short\n", "t").unwrap_err();
        assert!(err.starts_with("t:1: a token needs at least 16"), "{err}");
        let err = Tokens::parse(
            "submitter 0123456789abcdef0123\norganiser 0123456789abcdef0123\n",
            "t",
        )
        .unwrap_err();
        assert!(err.starts_with("t:2: this token is already"), "{err}");
    }
}
