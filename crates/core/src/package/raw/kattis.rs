//! Kattis / ICPC package files as they are written: `problem.yaml` of each version ([`Legacy`];
//! [`Current`], `problem_format_version: 2025-09`), a group's `testdata.yaml` /
//! `test_group.yaml` or a case's `NAME.yaml` ([`GroupConfig`]) and
//! `submissions/submissions.yaml` ([`Submission`] per pattern).
//!
//! Each struct names every key its specification has, read or not. A key named by a field of
//! type `Option<Unused>` is known and not read: silent. A key no field names is unknown: the
//! loader warns, naming file and key. Keys of the other version that packages in the wild carry
//! and the loader still reads have fields of their own, and the loader says so.

use super::scalars::{ArgsVisitor, TextVisitor};
use super::{present, Args, Number, Ordered, Text, Unused};
use serde::de::{self, value::MapAccessDeserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_yaml_ng::Value;
use std::fmt;

/// `problem.yaml` of a legacy package (no `problem_format_version`, or `legacy`,
/// `legacy-icpc`).
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of `key: value` lines")]
pub struct Legacy {
    pub problem_format_version: Option<Text>,
    /// `pass-fail` or `scoring`.
    #[serde(rename = "type")]
    pub kind: Option<Args>,
    pub name: Option<Name>,
    pub source: Option<Source>,
    pub limits: Option<LegacyLimits>,
    /// `default` or `custom`, then `interactive`, `score` (and `multi-pass`), in one string.
    pub validation: Option<Text>,
    /// Flags of the output validator, for every test.
    #[serde(default, deserialize_with = "present")]
    pub validator_flags: Option<Args>,
    /// `grading: {objective, show_test_data_groups, …}`: known, not read (the loader says so).
    pub grading: Option<Unused>,
    /// A 2025-09 key some legacy packages carry: read (the loader says so).
    pub constants: Option<Ordered<Constant>>,
    pub uuid: Option<Unused>,
    pub author: Option<Unused>,
    pub source_url: Option<Unused>,
    pub license: Option<Unused>,
    pub rights_owner: Option<Unused>,
    pub keywords: Option<Unused>,
    pub languages: Option<Unused>,
}

/// `limits:` of a legacy `problem.yaml`.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of limits, e.g. `memory: 1024`")]
pub struct LegacyLimits {
    /// Not in the legacy specification, but BAPCtools and DOMjudge packages write it here.
    #[serde(default, deserialize_with = "present")]
    pub time_limit: Option<Number>,
    #[serde(default, deserialize_with = "present")]
    pub time_multiplier: Option<Number>,
    /// MiB.
    #[serde(default, deserialize_with = "present")]
    pub memory: Option<Number>,
    /// MiB.
    #[serde(default, deserialize_with = "present")]
    pub output: Option<Number>,
    /// For `validation: custom multi-pass` (not in the legacy specification either).
    #[serde(default, deserialize_with = "present")]
    pub validation_passes: Option<Number>,
    pub time_safety_margin: Option<Unused>,
    pub code: Option<Unused>,
    pub compilation_time: Option<Unused>,
    pub compilation_memory: Option<Unused>,
    pub validation_time: Option<Unused>,
    pub validation_memory: Option<Unused>,
    pub validation_output: Option<Unused>,
}

/// `problem.yaml` of a 2025-09 package.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of `key: value` lines")]
pub struct Current {
    pub problem_format_version: Option<Text>,
    /// One or a list of `pass-fail`, `scoring`, `multi-pass`, `interactive`, `submit-answer`.
    #[serde(rename = "type")]
    pub kind: Option<Args>,
    pub name: Option<Name>,
    pub source: Option<Source>,
    pub limits: Option<Limits>,
    pub constants: Option<Ordered<Constant>>,
    /// Legacy keys some 2025-09 packages still carry (the specification's own interactive
    /// example): read (the loader says so).
    pub validation: Option<Text>,
    #[serde(default, deserialize_with = "present")]
    pub validator_flags: Option<Args>,
    pub uuid: Option<Unused>,
    pub version: Option<Unused>,
    pub credits: Option<Unused>,
    pub license: Option<Unused>,
    pub rights_owner: Option<Unused>,
    pub embargo_until: Option<Unused>,
    pub keywords: Option<Unused>,
    pub languages: Option<Unused>,
    pub allow_file_writing: Option<Unused>,
}

/// `limits:` of a 2025-09 `problem.yaml`.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of limits, e.g. `time_limit: 2.0`")]
pub struct Limits {
    /// Seconds.
    #[serde(default, deserialize_with = "present")]
    pub time_limit: Option<Number>,
    pub time_multipliers: Option<TimeMultipliers>,
    /// Seconds.
    #[serde(default, deserialize_with = "present")]
    pub time_resolution: Option<Number>,
    /// MiB.
    #[serde(default, deserialize_with = "present")]
    pub memory: Option<Number>,
    /// MiB.
    #[serde(default, deserialize_with = "present")]
    pub output: Option<Number>,
    #[serde(default, deserialize_with = "present")]
    pub validation_passes: Option<Number>,
    pub code: Option<Unused>,
    pub compilation_time: Option<Unused>,
    pub compilation_memory: Option<Unused>,
    pub validation_time: Option<Unused>,
    pub validation_memory: Option<Unused>,
    pub validation_output: Option<Unused>,
}

/// `limits.time_multipliers`.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of `ac_to_time_limit` and `time_limit_to_tle`")]
pub struct TimeMultipliers {
    #[serde(default, deserialize_with = "present")]
    pub ac_to_time_limit: Option<Number>,
    pub time_limit_to_tle: Option<Unused>,
}

/// What the loader reads of `problem.yaml`, whichever version wrote it.
#[derive(Debug, Default)]
pub struct Header {
    pub version: Option<String>,
    /// `type`'s words.
    pub types: Vec<String>,
    /// Legacy `validation`.
    pub validation: Option<String>,
    pub name: Option<Name>,
    pub source: Option<String>,
    pub validator_flags: Vec<String>,
    pub constants: Vec<(String, Constant)>,
    pub limits: HeaderLimits,
    /// Legacy `grading` is given.
    pub grading: bool,
    /// Keys of the other version the file gives, which are read all the same.
    pub borrowed: Vec<&'static str>,
}

/// The limits of either version (legacy `time_multiplier`, 2025-09
/// `time_multipliers.ac_to_time_limit` as `multiplier`).
#[derive(Debug, Default)]
pub struct HeaderLimits {
    pub time_limit: Option<f64>,
    pub multiplier: Option<f64>,
    pub resolution: Option<f64>,
    pub memory: Option<f64>,
    pub output: Option<f64>,
    pub validation_passes: Option<f64>,
}

fn num(n: Option<Number>) -> Option<f64> {
    n.map(|n| n.0)
}

impl From<Legacy> for Header {
    fn from(y: Legacy) -> Header {
        let limits = y.limits.unwrap_or_default();
        let mut borrowed = Vec::new();
        if y.constants.is_some() {
            borrowed.push("constants");
        }
        Header {
            version: y.problem_format_version.map(|t| t.0),
            types: y.kind.unwrap_or_default().0,
            validation: y.validation.map(|t| t.0),
            name: y.name,
            source: y.source.and_then(|s| s.0),
            validator_flags: y.validator_flags.unwrap_or_default().0,
            constants: y.constants.unwrap_or_default().0,
            limits: HeaderLimits {
                time_limit: num(limits.time_limit),
                multiplier: num(limits.time_multiplier),
                resolution: None,
                memory: num(limits.memory),
                output: num(limits.output),
                validation_passes: num(limits.validation_passes),
            },
            grading: y.grading.is_some(),
            borrowed,
        }
    }
}

impl From<Current> for Header {
    fn from(y: Current) -> Header {
        let limits = y.limits.unwrap_or_default();
        let mut borrowed = Vec::new();
        if y.validation.is_some() {
            borrowed.push("validation");
        }
        if y.validator_flags.is_some() {
            borrowed.push("validator_flags");
        }
        Header {
            version: y.problem_format_version.map(|t| t.0),
            types: y.kind.unwrap_or_default().0,
            validation: y.validation.map(|t| t.0),
            name: y.name,
            source: y.source.and_then(|s| s.0),
            validator_flags: y.validator_flags.unwrap_or_default().0,
            constants: y.constants.unwrap_or_default().0,
            limits: HeaderLimits {
                time_limit: num(limits.time_limit),
                multiplier: limits
                    .time_multipliers
                    .and_then(|m| num(m.ac_to_time_limit)),
                resolution: num(limits.time_resolution),
                memory: num(limits.memory),
                output: num(limits.output),
                validation_passes: num(limits.validation_passes),
            },
            grading: false,
            borrowed,
        }
    }
}

/// `name`: text, or (2025-09) a map of language codes to names.
#[derive(Debug, Clone, PartialEq)]
pub enum Name {
    One(String),
    Languages(Vec<(String, String)>),
}

impl Name {
    /// The English name, else the first.
    pub fn pick(&self) -> Option<&str> {
        match self {
            Name::One(n) => Some(n),
            Name::Languages(all) => all
                .iter()
                .find(|(l, _)| l == "en")
                .or(all.first())
                .map(|(_, n)| n.as_str()),
        }
    }
}

/// The scalar visits of a type that also takes text, through [`TextVisitor`].
macro_rules! text_visits {
    ($wrap:expr) => {
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            TextVisitor.visit_str(v).map(|t| $wrap(t.0))
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            TextVisitor.visit_bool(v).map(|t| $wrap(t.0))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            TextVisitor.visit_i64(v).map(|t| $wrap(t.0))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            TextVisitor.visit_u64(v).map(|t| $wrap(t.0))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            TextVisitor.visit_f64(v).map(|t| $wrap(t.0))
        }
    };
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Name;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a name, or a map of language codes to names")
            }
            text_visits!(Name::One);
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Name, A::Error> {
                let all = Ordered::<Text>::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Name::Languages(
                    all.0.into_iter().map(|(l, n)| (l, n.0)).collect(),
                ))
            }
        }
        d.deserialize_any(V)
    }
}

/// `source`: text, a map `{name, url}`, or (2025-09) a list of these; the first name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Source(pub Option<String>);

#[derive(Deserialize)]
#[serde(expecting = "a map of the source's `name` and `url`")]
struct SourceEntry {
    name: Option<Text>,
    #[expect(dead_code, reason = "known, not read")]
    url: Option<Unused>,
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Source;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a source, a map with its name and url, or a list of these")
            }
            text_visits!(|t| Source(Some(t)));
            fn visit_unit<E: de::Error>(self) -> Result<Source, E> {
                Ok(Source(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Source, A::Error> {
                let entry = SourceEntry::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Source(entry.name.map(|n| n.0)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Source, A::Error> {
                let mut first = None;
                while let Some(Source(name)) = seq.next_element()? {
                    first = first.or(Some(name));
                }
                Ok(Source(first.flatten()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A 2025-09 constant: `name: value`, or `name: {value: …, variant: …}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    Plain(String),
    Variants(Vec<(String, String)>),
}

impl<'de> Deserialize<'de> for Constant {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Constant;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, a string, or a map of its value and variants")
            }
            text_visits!(Constant::Plain);
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Constant, A::Error> {
                let all = Ordered::<Text>::deserialize(MapAccessDeserializer::new(map))?;
                Ok(Constant::Variants(
                    all.0.into_iter().map(|(k, v)| (k, v.0)).collect(),
                ))
            }
        }
        d.deserialize_any(V)
    }
}

/// A group's `testdata.yaml` (legacy) / `test_group.yaml` (2025-09), or a case's `NAME.yaml`.
/// One shape for both versions: packages in the wild mix them (the 2023-07 draft scores with
/// the legacy keys in `test_group.yaml`), and the loader reads each key whichever file has it.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of a group's settings")]
pub struct GroupConfig {
    #[serde(default, deserialize_with = "present")]
    pub output_validator_args: Option<Args>,
    /// Legacy name of `output_validator_args`.
    #[serde(default, deserialize_with = "present")]
    pub output_validator_flags: Option<Args>,
    #[serde(default, deserialize_with = "present")]
    pub input_validator_args: Option<InputArgs>,
    /// Legacy name of `input_validator_args`.
    #[serde(default, deserialize_with = "present")]
    pub input_validator_flags: Option<InputArgs>,
    /// Legacy default grader: `break` or `continue`.
    pub on_reject: Option<Text>,
    #[serde(default, deserialize_with = "present")]
    pub accept_score: Option<Number>,
    #[serde(default, deserialize_with = "present")]
    pub reject_score: Option<Number>,
    /// Two numbers, `inf` allowed: `0 100`.
    pub range: Option<Text>,
    #[serde(default, deserialize_with = "present")]
    pub grader_flags: Option<Args>,
    /// Legacy `grading: custom` (a grader of the package's own).
    pub grading: Option<Text>,
    /// 2025-09: a number or `unbounded`.
    pub max_score: Option<Text>,
    /// 2025-09: `pass-fail`, `sum` or `min`.
    pub score_aggregation: Option<Text>,
    #[serde(default, deserialize_with = "present")]
    pub require_pass: Option<Args>,
    /// A draft of 2025-09 (the specification's own scoring example):
    /// `scoring: {score, aggregation, require_pass}`, read as [`DraftScoring`] in a 2025-09
    /// package.
    pub scoring: Option<Value>,
    pub full_feedback: Option<Unused>,
    pub static_validation: Option<Unused>,
    pub input_visualizer_args: Option<Unused>,
    pub output_visualizer_args: Option<Unused>,
}

/// The draft `scoring:` map of a group.
#[derive(Debug, Default, Deserialize)]
#[serde(expecting = "a map of `score`, `aggregation` and `require_pass`")]
pub struct DraftScoring {
    pub score: Option<Text>,
    pub aggregation: Option<Text>,
    #[serde(default, deserialize_with = "present")]
    pub require_pass: Option<Args>,
}

/// Input validator arguments: for all validators, or per validator name.
#[derive(Debug, Clone, PartialEq)]
pub enum InputArgs {
    All(Args),
    PerValidator(Vec<(String, Args)>),
}

impl<'de> Deserialize<'de> for InputArgs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = InputArgs;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string, a list of strings, or a map of validator names to these")
            }
            fn visit_unit<E: de::Error>(self) -> Result<InputArgs, E> {
                ArgsVisitor.visit_unit().map(InputArgs::All)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<InputArgs, E> {
                ArgsVisitor.visit_str(v).map(InputArgs::All)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<InputArgs, E> {
                ArgsVisitor.visit_i64(v).map(InputArgs::All)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<InputArgs, E> {
                ArgsVisitor.visit_u64(v).map(InputArgs::All)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<InputArgs, E> {
                ArgsVisitor.visit_f64(v).map(InputArgs::All)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<InputArgs, A::Error> {
                ArgsVisitor.visit_seq(seq).map(InputArgs::All)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<InputArgs, A::Error> {
                let all = Ordered::<Args>::deserialize(MapAccessDeserializer::new(map))?;
                Ok(InputArgs::PerValidator(all.0))
            }
        }
        d.deserialize_any(V)
    }
}

/// One pattern's entry of `submissions.yaml` (2025-09): what the submissions it names must get.
#[derive(Debug, Default)]
pub struct Submission {
    pub permitted: Option<Args>,
    pub required: Option<Args>,
    pub score: Option<Score>,
    pub entrypoint: Option<Text>,
    /// Must appear in the message of one of the tests.
    pub message: Option<Text>,
    /// Requirements on the tests of a group: any other key whose value is a map, a test glob
    /// relative to `data/`.
    pub groups: Vec<(String, GroupRule)>,
    /// Other keys whose value is not a map: unknown.
    pub unknown: Vec<String>,
}

/// Keys of a submission's entry that are known and not read.
const SUBMISSION_UNUSED: &[&str] = &[
    "language",
    "authors",
    "model_solution",
    "use_for_time_limit",
];

impl<'de> Deserialize<'de> for Submission {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Submission;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of keys such as permitted and required")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Submission, A::Error> {
                let mut s = Submission::default();
                while let Some(Text(key)) = map.next_key()? {
                    match key.as_str() {
                        "permitted" => s.permitted = Some(map.next_value()?),
                        "required" => s.required = Some(map.next_value()?),
                        "score" => s.score = Some(map.next_value()?),
                        "entrypoint" => s.entrypoint = Some(map.next_value()?),
                        "message" => s.message = Some(map.next_value()?),
                        k if SUBMISSION_UNUSED.contains(&k) => {
                            map.next_value::<Value>()?;
                        }
                        _ => match map.next_value()? {
                            GroupOrOther::Group(g) => s.groups.push((key, g)),
                            GroupOrOther::Other => s.unknown.push(key),
                        },
                    }
                }
                Ok(s)
            }
        }
        d.deserialize_map(V)
    }
}

/// Requirements on the tests of a group, under a submission's pattern.
#[derive(Debug, Default, Deserialize)]
#[expect(
    dead_code,
    reason = "its `Unused` fields name keys the judge knows and does not read"
)]
#[serde(expecting = "a map of a group's requirements")]
pub struct GroupRule {
    #[serde(default, deserialize_with = "present")]
    pub permitted: Option<Args>,
    #[serde(default, deserialize_with = "present")]
    pub required: Option<Args>,
    pub score: Option<Score>,
    pub message: Option<Text>,
    pub use_for_time_limit: Option<Unused>,
}

enum GroupOrOther {
    Group(GroupRule),
    Other,
}

impl<'de> Deserialize<'de> for GroupOrOther {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GroupOrOther;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of a group's requirements")
            }
            // Not a map: an unknown key, whatever its value.
            text_visits!(|_| GroupOrOther::Other);
            fn visit_unit<E: de::Error>(self) -> Result<GroupOrOther, E> {
                Ok(GroupOrOther::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GroupOrOther, A::Error> {
                while seq.next_element::<Value>()?.is_some() {}
                Ok(GroupOrOther::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<GroupOrOther, A::Error> {
                GroupRule::deserialize(MapAccessDeserializer::new(map)).map(GroupOrOther::Group)
            }
        }
        d.deserialize_any(V)
    }
}

/// A score a submission must get: a number, or `[low, high]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Score(pub Vec<f64>);

impl<'de> Deserialize<'de> for Score {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Score;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a list of two")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Score, E> {
                Ok(Score(vec![v as f64]))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Score, E> {
                Ok(Score(vec![v as f64]))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Score, E> {
                Ok(Score(vec![v]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Score, E> {
                v.trim()
                    .parse()
                    .map(|x| Score(vec![x]))
                    .map_err(|_| E::invalid_type(de::Unexpected::Str(v), &self))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Score, A::Error> {
                let mut out = Vec::new();
                while let Some(Number(x)) = seq.next_element()? {
                    out.push(x);
                }
                Ok(Score(out))
            }
        }
        d.deserialize_any(V)
    }
}
