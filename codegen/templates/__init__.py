"""Jinja2 templates for the generated files; `render(name, **values)` fills one in."""
from __future__ import annotations

from pathlib import Path

import jinja2

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent)),
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined,
)


def render(name: str, **values) -> str:
    return _ENV.get_template(name).render(**values)
