//! `problem.xml` of a Polygon package as it is written: the elements and attributes the judge
//! reads, each element with its place (line, column) for errors, and the elements it does not
//! know (under `<problem>` and `<assets>`) for warnings. Filled from the XML tree by hand
//! (roxmltree): serde for XML would need another crate, and Polygon writes the file itself, so
//! its shape is fixed and small. Validation into the model lives in `package/polygon.rs`.

use crate::package::PackageError;
use roxmltree::{Document, Node};
use std::path::Path;

/// A line and column (1-based).
pub type Pos = (usize, usize);

/// `<problem>`.
#[derive(Debug, Default)]
pub struct ProblemXml {
    pub pos: Pos,
    /// `short-name`.
    pub short_name: Option<String>,
    /// `<names><name language value>`.
    pub names: Vec<(Option<String>, Option<String>)>,
    pub judging: Option<Judging>,
    /// `<files><executables><executable><source path>`: the generators' sources.
    pub executables: Vec<String>,
    pub assets: Option<Assets>,
    /// Children of `<problem>` the judge does not know: (place, tag).
    pub unknown: Vec<(Pos, String)>,
}

/// Children of `<problem>` the judge knows (most are not read: statements and the like).
const PROBLEM_CHILDREN: &[&str] = &[
    "names",
    "statements",
    "tutorials",
    "judging",
    "files",
    "assets",
    "properties",
    "stresses",
    "tags",
    "documents",
    "materials",
];

/// `<judging input-file output-file>`.
#[derive(Debug, Default)]
pub struct Judging {
    pub pos: Pos,
    pub input_file: Option<String>,
    pub output_file: Option<String>,
    pub testsets: Vec<Testset>,
}

/// `<testset name>`.
#[derive(Debug, Default)]
pub struct Testset {
    pub pos: Pos,
    pub name: Option<String>,
    /// Milliseconds.
    pub time_limit: Option<(Pos, String)>,
    /// Bytes.
    pub memory_limit: Option<(Pos, String)>,
    pub test_count: Option<String>,
    pub input_path_pattern: Option<String>,
    pub answer_path_pattern: Option<String>,
    pub tests: Vec<TestXml>,
    pub groups: Vec<GroupXml>,
}

/// `<test method cmd sample group points>`.
#[derive(Debug, Default)]
pub struct TestXml {
    pub pos: Pos,
    pub method: Option<String>,
    pub cmd: Option<String>,
    pub sample: bool,
    pub group: Option<String>,
    pub points: Option<String>,
}

/// `<group name points points-policy><dependencies><dependency group>`.
#[derive(Debug, Default)]
pub struct GroupXml {
    pub name: Option<String>,
    pub points: Option<String>,
    pub points_policy: Option<String>,
    pub dependencies: Vec<String>,
}

/// `<assets>`.
#[derive(Debug, Default)]
pub struct Assets {
    pub pos: Pos,
    pub checker: Option<ProgramXml>,
    pub interactor: Option<ProgramXml>,
    /// `<validator>` and `<validators><validator>`.
    pub validators: Vec<ProgramXml>,
    pub solutions: Vec<SolutionXml>,
    /// Children the judge does not know: (place, tag).
    pub unknown: Vec<(Pos, String)>,
}

const ASSET_CHILDREN: &[&str] = &[
    "checker",
    "validators",
    "validator",
    "solutions",
    "interactor",
];

/// A checker, interactor or validator: `<checker name type><source path>`.
#[derive(Debug, Default)]
pub struct ProgramXml {
    pub pos: Pos,
    pub name: Option<String>,
    /// `type`.
    pub kind: Option<String>,
    /// `<source path>`.
    pub source: Option<String>,
}

/// `<solution tag><source path type>`.
#[derive(Debug, Default)]
pub struct SolutionXml {
    pub pos: Pos,
    pub tag: Option<String>,
    pub source: Option<String>,
    /// The source's `type`, e.g. `python.pypy3`.
    pub language: Option<String>,
}

/// Reads `problem.xml` (its text `text`, at `path`): an XML error or a root that is not
/// `<problem>` is an error with its place.
pub fn parse(path: &Path, text: &str) -> Result<ProblemXml, PackageError> {
    let doc = Document::parse(text).map_err(|e| {
        let pos = e.pos();
        let text = e.to_string();
        // The crate's message ends with the position; the error puts it after the file name.
        let text = text
            .strip_suffix(&format!(" at {}:{}", pos.row, pos.col))
            .unwrap_or(&text);
        let mut err = PackageError::new(path, format!("not valid XML: {text}"))
            .hint("fix the XML there (every tag closed, attribute values quoted); Polygon writes problem.xml itself, so re-download the package if it was edited by hand");
        err.position = Some((pos.row as usize, pos.col as usize));
        err
    })?;
    let root = doc.root_element();
    let place = |node: Node| {
        let p = doc.text_pos_at(node.range().start);
        (p.row as usize, p.col as usize)
    };
    if !root.has_tag_name("problem") {
        let mut e = PackageError::new(
            path,
            format!(
                "the root element is <{}>, not <problem>",
                root.tag_name().name()
            ),
        )
        .hint("a Polygon package's problem.xml starts with <problem>");
        e.position = Some(place(root));
        return Err(e);
    }
    let mut problem = ProblemXml {
        pos: place(root),
        short_name: root.attribute("short-name").map(String::from),
        ..ProblemXml::default()
    };
    for c in root.children().filter(|c| c.is_element()) {
        match c.tag_name().name() {
            "names" => {
                problem.names = children(c, "name")
                    .map(|n| (attr(n, "language"), attr(n, "value")))
                    .collect()
            }
            "judging" => problem.judging = Some(judging(c, &place)),
            "files" => {
                problem.executables = child(c, "executables")
                    .into_iter()
                    .flat_map(|e| children(e, "executable"))
                    .filter_map(|e| child(e, "source").and_then(|s| attr(s, "path")))
                    .collect()
            }
            "assets" => problem.assets = Some(assets(c, &place)),
            t if PROBLEM_CHILDREN.contains(&t) => {}
            t => problem.unknown.push((place(c), t.to_string())),
        }
    }
    Ok(problem)
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|c| c.has_tag_name(name))
}

fn children<'a, 'i: 'a>(
    node: Node<'a, 'i>,
    name: &'a str,
) -> impl Iterator<Item = Node<'a, 'i>> + 'a {
    node.children().filter(move |c| c.has_tag_name(name))
}

fn attr(node: Node, name: &str) -> Option<String> {
    node.attribute(name).map(String::from)
}

fn text_of(node: Option<Node>) -> Option<String> {
    node.and_then(|n| n.text()).map(|t| t.trim().to_string())
}

fn judging(node: Node, place: &dyn Fn(Node) -> Pos) -> Judging {
    Judging {
        pos: place(node),
        input_file: attr(node, "input-file"),
        output_file: attr(node, "output-file"),
        testsets: children(node, "testset")
            .map(|t| testset(t, place))
            .collect(),
    }
}

fn testset(node: Node, place: &dyn Fn(Node) -> Pos) -> Testset {
    let limit = |name: &str| {
        child(node, name).map(|n| (place(n), n.text().unwrap_or("").trim().to_string()))
    };
    Testset {
        pos: place(node),
        name: attr(node, "name"),
        time_limit: limit("time-limit"),
        memory_limit: limit("memory-limit"),
        test_count: text_of(child(node, "test-count")),
        input_path_pattern: text_of(child(node, "input-path-pattern")),
        answer_path_pattern: text_of(child(node, "answer-path-pattern")),
        tests: child(node, "tests")
            .into_iter()
            .flat_map(|t| children(t, "test"))
            .map(|t| TestXml {
                pos: place(t),
                method: attr(t, "method"),
                cmd: attr(t, "cmd"),
                sample: t.attribute("sample") == Some("true"),
                group: attr(t, "group"),
                points: attr(t, "points"),
            })
            .collect(),
        groups: child(node, "groups")
            .into_iter()
            .flat_map(|g| children(g, "group"))
            .map(|g| GroupXml {
                name: attr(g, "name"),
                points: attr(g, "points"),
                points_policy: attr(g, "points-policy"),
                dependencies: child(g, "dependencies")
                    .map(|d| d.children().filter_map(|c| attr(c, "group")).collect())
                    .unwrap_or_default(),
            })
            .collect(),
    }
}

fn assets(node: Node, place: &dyn Fn(Node) -> Pos) -> Assets {
    let program = |n: Node| ProgramXml {
        pos: place(n),
        name: attr(n, "name"),
        kind: attr(n, "type"),
        source: child(n, "source").and_then(|s| attr(s, "path")),
    };
    let mut assets = Assets {
        pos: place(node),
        checker: child(node, "checker").map(program),
        interactor: child(node, "interactor").map(program),
        ..Assets::default()
    };
    assets.validators = children(node, "validator").map(program).collect();
    if let Some(list) = child(node, "validators") {
        assets
            .validators
            .extend(children(list, "validator").map(program));
    }
    if let Some(list) = child(node, "solutions") {
        assets.solutions = children(list, "solution")
            .map(|s| SolutionXml {
                pos: place(s),
                tag: attr(s, "tag"),
                source: child(s, "source").and_then(|src| attr(src, "path")),
                language: child(s, "source").and_then(|src| attr(src, "type")),
            })
            .collect();
    }
    for c in node.children().filter(|c| c.is_element()) {
        if !ASSET_CHILDREN.contains(&c.tag_name().name()) {
            assets
                .unknown
                .push((place(c), c.tag_name().name().to_string()));
        }
    }
    assets
}
