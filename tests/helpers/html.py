"""HTML as a browser reads it (the stdlib's html.parser): elements, their attributes and text with entities decoded,
so that tests hold what a page shows, never one escaping's bytes; and headless Chromium for the render checks."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlparse

import pytest

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
BROWSER_HOSTS = ("google.com", "googleapis.com", "gstatic.com", "gvt1.com", "chromium.org")  # Chromium's own


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""  # all the text inside it, entities decoded
    inside: list[Element] = field(default_factory=list)  # the elements nested in it, in document order

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()


@dataclass
class Page:
    elements: list[Element] = field(default_factory=list)  # in document order
    text: str = ""  # the whole document's text, entities decoded

    def tags(self) -> set[str]:
        return {e.tag for e in self.elements}

    def find(self, tag: str, cls: str | None = None) -> list[Element]:
        return [e for e in self.elements if e.tag == tag and (cls is None or cls in e.classes)]

    def attribute_values(self) -> list[str]:
        return [value for e in self.elements for value in e.attrs.values()]


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page, self.open = Page(), []

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.page.elements.append(element)
        for outer in self.open:
            outer.inside.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if self.open and self.open[-1].tag == tag and tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, -1, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data):
        self.page.text += data
        for element in self.open:
            element.text += data


def parse(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.page


def text_of(html: str) -> str:
    """The text a page (or a fragment of one) shows, tags gone and entities decoded."""
    return parse(html).text


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI") or os.environ.get("TEETH_REQUIRE_CHROMIUM"):
            pytest.fail("chromium is not installed, and CI must run the render check (.ci/run installs it)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def page_fetches(urls: list[str]) -> list[str]:
    return [u for u in urls if not (urlparse(u).hostname or "").endswith(BROWSER_HOSTS)]
