"""The host helpers (host.py.j2) and launchers (launcher.py.j2) as Jinja templates."""
from __future__ import annotations

from functools import lru_cache

import jinja2


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.PackageLoader("tile2triton.emit", "templates"),
                              trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
                              undefined=jinja2.StrictUndefined)


def render(template: str, **values) -> str:
    return environment().get_template(template).render(**values)


def render_host_helpers(lists: bool, features: set) -> str:
    return render("host.py.j2", lists=lists, features=features).strip("\n")
