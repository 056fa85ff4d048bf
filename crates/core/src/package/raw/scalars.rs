//! Lenient YAML values, for what real packages write: numbers in quotes (`time_limit: "2"`), a
//! list of words as one string (`type: pass-fail interactive`, `validator_flags: a b`), a number
//! where text is meant (`output_validator_args: [float_tolerance, 1e-6]`). Each is a visitor, so
//! that a value of the wrong type is an error at its own line and column.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};
use std::fmt;
use std::marker::PhantomData;

/// For `#[serde(default, deserialize_with = "present")]`: a key given with no value (`key:`)
/// is `Some` of what nothing means to `T` (no arguments), not the key left out.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// A number, or a number in quotes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number(pub f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
                v.trim()
                    .parse()
                    .map(Number)
                    .map_err(|_| E::invalid_type(Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

/// A scalar as text: a string, or a number or a boolean as YAML writes it (`5`, `1e-6`, `true`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Text(pub String);

pub(super) struct TextVisitor;

impl Visitor<'_> for TextVisitor {
    type Value = Text;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("text or a number")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Text, E> {
        Ok(Text(v.to_string()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Text, E> {
        Ok(Text(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Text, E> {
        Ok(Text(v.to_string()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Text, E> {
        Ok(Text(v.to_string()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Text, E> {
        Ok(Text(v.to_string()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Text, E> {
        // As YAML writes it (`1e-6`, `.inf`), not as Rust does (`0.000001`, `inf`).
        Ok(Text(serde_yaml_ng::Number::from(v).to_string()))
    }
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TextVisitor)
    }
}

/// Words: a list of scalars, or one string of words separated by blanks, or nothing (`key:`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Args(pub Vec<String>);

pub(super) struct ArgsVisitor;

impl<'de> Visitor<'de> for ArgsVisitor {
    type Value = Args;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string or a list of strings")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Args, E> {
        Ok(Args(Vec::new()))
    }
    fn visit_none<E: de::Error>(self) -> Result<Args, E> {
        Ok(Args(Vec::new()))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Args, E> {
        Ok(Args(v.split_whitespace().map(String::from).collect()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Args, E> {
        Ok(Args(vec![TextVisitor.visit_i64::<E>(v)?.0]))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Args, E> {
        Ok(Args(vec![TextVisitor.visit_u64::<E>(v)?.0]))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Args, E> {
        Ok(Args(vec![TextVisitor.visit_f64::<E>(v)?.0]))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Args, A::Error> {
        let mut out = Vec::new();
        while let Some(Text(t)) = seq.next_element()? {
            out.push(t);
        }
        Ok(Args(out))
    }
}

impl<'de> Deserialize<'de> for Args {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ArgsVisitor)
    }
}

/// A mapping in the file's order, its keys as text.
#[derive(Debug, Clone, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Ordered<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of `key: value` lines")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Ordered<T>, E> {
                Ok(Ordered(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
                let mut out = Vec::new();
                while let Some(Text(key)) = map.next_key()? {
                    out.push((key, map.next_value()?));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V(PhantomData))
    }
}

/// A key the judge knows and does not read: any value, dropped. Naming it in a struct keeps it
/// from being an unknown key (read through `deserialize_any`, which `serde_ignored` does not
/// report, with nothing below it reported either).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unused;

impl<'de> Deserialize<'de> for Unused {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde_yaml_ng::Value::deserialize(d).map(|_| Unused)
    }
}
