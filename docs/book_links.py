#!/usr/bin/env python3
"""Check the links of the rendered guide: every relative link of every page of an mdBook build
(`mdbook build docs`, into target/book) must lead to a file of the build, and a `#anchor` to an
id of that page. Usage: python3 docs/book_links.py target/book. Standard library only."""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name == "id" and value:
                self.ids.add(value)
            if name in ("href", "src") and value is not None and tag in ("a", "img", "link", "script"):
                self.links.append(value)


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def broken(book: Path) -> list[str]:
    pages = {p: parse(p) for p in book.rglob("*.html")}
    problems = []
    for path, page in sorted(pages.items()):
        for link in page.links:
            url = urlsplit(link)
            if url.scheme or url.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = path if not url.path else (path.parent / unquote(url.path)).resolve()
            where = f"{path.relative_to(book)}: {link}"
            if target.is_dir() and not url.fragment:
                continue  # a folder of the book, such as docs/protocol/ (JSON Schemas)
            if not target.is_file():
                problems.append(f"{where}: no such file")
            elif url.fragment and target.suffix == ".html":
                ids = (pages.get(target) or parse(target)).ids
                if unquote(url.fragment) not in ids:
                    problems.append(f"{where}: no id #{url.fragment} there")
    return problems


def main() -> int:
    book = Path(sys.argv[1] if len(sys.argv) > 1 else "target/book").resolve()
    if not (book / "index.html").is_file():
        print(f"{book} holds no built book (run `mdbook build docs`)", file=sys.stderr)
        return 2
    problems = broken(book)
    for p in problems:
        print(p, file=sys.stderr)
    pages = len(list(book.rglob("*.html")))
    print(f"{pages} pages: {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
