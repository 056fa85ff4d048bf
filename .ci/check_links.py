#!/usr/bin/env python3
"""Check the links of the built book and of the README (standard library only).

    python3 .ci/check_links.py [--book docs/book/book] [--readme README.md]

Fails (exit 1), naming the file and the link, on a relative link (href or src) to a file that is
missing, to a place outside the built book, or to an #anchor that the target page does not have.
External http(s) links are only listed, never fetched. Run `mdbook build docs/book` first.
"""

import argparse
import os
import re
import sys
from html.parser import HTMLParser
from urllib.parse import unquote, urlsplit

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK_ATTRS = {"href", "src"}
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


class Page(HTMLParser):
    """The ids (anchors), the links and the <base href> of one HTML file."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # (line, url)
        self.base = None

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)
            elif name in LINK_ATTRS:
                if tag == "base":
                    self.base = value
                else:
                    self.links.append((self.getpos()[0], value))

    handle_startendtag = handle_starttag


def parse_html(path, cache={}):
    if path not in cache:
        page = Page()
        with open(path, encoding="utf-8", errors="replace") as f:
            page.feed(f.read())
        page.close()
        cache[path] = page
    return cache[path]


def external(url):
    """'http' for an http(s) or protocol-relative link, 'other' for another scheme, None if relative."""
    if url.startswith("//"):
        return "http"
    m = SCHEME.match(url)
    if not m:
        return None
    return "http" if m.group(0).lower() in ("http:", "https:") else "other"


def check_book(book, errors, externals):
    book = os.path.realpath(book)
    count = 0
    files = []
    for folder, _, names in os.walk(book):
        files += [os.path.join(folder, n) for n in names if n.endswith(".html")]
    if not files:
        errors.append(f"{book}: no HTML files (run `mdbook build docs/book` first)")
        return 0, 0
    for path in sorted(files):
        page = parse_html(path)
        rel = os.path.relpath(path, ROOT)
        here = os.path.dirname(path)
        if page.base is not None:  # mdBook's 404.html: <base href="/">, the root of the book
            b = urlsplit(page.base).path
            here = os.path.join(book, b.lstrip("/")) if b.startswith("/") else os.path.join(here, b)
        for line, url in page.links:
            count += 1
            kind = external(url)
            if kind == "http":
                externals.add((url, rel))
                continue
            if kind == "other":  # mailto:, data:, javascript:
                continue
            parts = urlsplit(url)
            target_path, fragment = unquote(parts.path), unquote(parts.fragment)
            where = f"{rel}:{line}: link `{url}`"
            if not target_path:
                target = path
            elif target_path.startswith("/"):
                target = os.path.join(book, target_path.lstrip("/"))
            else:
                target = os.path.join(here, target_path)
            target = os.path.realpath(target)
            if os.path.isdir(target):
                target = os.path.join(target, "index.html")
            if os.path.commonpath([book, target]) != book:
                errors.append(f"{where}: points outside the built book ({os.path.relpath(target, ROOT)})")
                continue
            if not os.path.isfile(target):
                errors.append(f"{where}: no such file {os.path.relpath(target, ROOT)}")
                continue
            if fragment and target.endswith(".html") and fragment not in parse_html(target).ids:
                errors.append(f"{where}: no anchor #{fragment} in {os.path.relpath(target, ROOT)}")
    return len(files), count


# --- Markdown (the README) -------------------------------------------------------------------

FENCE = re.compile(r"^\s{0,3}(```|~~~)")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)=\"([^\"]*)\"", re.I)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)*?\1")


def markdown_lines(text):
    """The lines outside fenced code blocks, with inline code spans blanked out: (number, line)."""
    fence = None
    for number, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is None:
            yield number, CODE_SPAN.sub(lambda c: " " * len(c.group(0)), line)


def github_anchors(path, cache={}):
    """The anchors GitHub gives the headings of a Markdown file."""
    if path not in cache:
        seen, anchors = {}, set()
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fence = None
        for line in text.split("\n"):
            m = FENCE.match(line)
            if m:
                fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
                continue
            h = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if fence is None and h:
                title = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", h.group(1))  # a link's text
                slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
                n = seen.get(slug, 0)
                seen[slug] = n + 1
                anchors.add(slug if n == 0 else f"{slug}-{n}")
        cache[path] = anchors
    return cache[path]


def check_markdown(path, errors, externals):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    rel = os.path.relpath(path, ROOT)
    count = 0
    for number, line in markdown_lines(text):
        urls = [m.group(1) for m in INLINE_LINK.finditer(line)]
        urls += [m.group(1) for m in HTML_LINK.finditer(line)]
        m = REF_DEF.match(line)
        if m:
            urls.append(m.group(1))
        for url in urls:
            url = url.strip("<>")
            count += 1
            kind = external(url)
            if kind == "http":
                externals.add((url, rel))
                continue
            if kind == "other":
                continue
            parts = urlsplit(url)
            target_path, fragment = unquote(parts.path), unquote(parts.fragment)
            where = f"{rel}:{number}: link `{url}`"
            target = os.path.normpath(os.path.join(os.path.dirname(path), target_path)) if target_path else path
            if not os.path.exists(target):
                errors.append(f"{where}: no such file {os.path.relpath(target, ROOT)}")
                continue
            if fragment and target.endswith(".md") and fragment.lower() not in github_anchors(target):
                errors.append(f"{where}: no heading for #{fragment} in {os.path.relpath(target, ROOT)}")
    return count


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--book", default=os.path.join(ROOT, "docs", "book", "book"))
    parser.add_argument("--readme", action="append", help="a Markdown file to check (default: README.md)")
    args = parser.parse_args()
    errors, externals = [], set()
    pages, book_links = check_book(args.book, errors, externals)
    readme_links = 0
    for readme in args.readme or [os.path.join(ROOT, "README.md")]:
        readme_links += check_markdown(readme, errors, externals)
    urls = sorted({url for url, _ in externals})
    if urls:
        print(f"external links, not fetched ({len(urls)}):")
        for url in urls:
            print(f"  {url}  ({', '.join(sorted({f for u, f in externals if u == url})[:3])})")
    sys.stdout.flush()
    errors = list(dict.fromkeys(errors))  # mdBook writes each image twice (zoom), on one line
    for error in errors:
        print(f"broken link: {error}", file=sys.stderr)
    sys.stderr.flush()
    print(
        f"link check: {book_links} links in {pages} pages of the book, {readme_links} in the README; "
        f"{len(errors)} broken"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
