"""Diagnostics in the formats other tools read: `text` (for people, on stderr), `json`, `github`
(workflow commands that annotate a pull request) and `sarif` (2.1.0, for code-scanning
dashboards). The machine formats go to stdout as one document at the end of a run."""
from __future__ import annotations

import json

from ..diagnostics import CODES, Diagnostic

FORMATS = ("text", "json", "github", "sarif")


def _record(d: Diagnostic) -> dict:
    out = {"path": d.path, "line": d.line, "col": d.col, "code": d.code, "message": d.message,
           "help": d.help, "severity": "error"}
    if d.notes:  # other locations the problem involves
        out["notes"] = [n.as_json() for n in d.notes]
    return out


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def github_line(d: Diagnostic) -> str:
    props = [f"file={_gh_escape(d.path, True)}"]
    if d.line:
        props.append(f"line={d.line}")
        if d.col:
            props.append(f"col={d.col}")
    props.append(f"title={_gh_escape(d.code, True)}")
    msg = d.message + "".join(f"\n\nnote: {n.path}:{n.line}:{n.col}: {n.message}"
                              for n in d.notes) + (f"\n\nhelp: {d.help}" if d.help else "")
    return f"::error {','.join(props)}::{_gh_escape(msg)}"


def sarif(diagnostics: list[Diagnostic], version: str) -> dict:
    used = sorted({d.code for d in diagnostics})
    results = []
    for d in diagnostics:
        loc: dict = {"artifactLocation": {"uri": d.path.replace("\\", "/")}}
        if d.line >= 1:  # SARIF lines and columns start at 1
            loc["region"] = {"startLine": d.line, "startColumn": max(d.col, 1)}
        text = d.message + (f" (help: {d.help})" if d.help else "")
        result = {"ruleId": d.code, "ruleIndex": used.index(d.code), "level": "error",
                  "message": {"text": text}, "locations": [{"physicalLocation": loc}]}
        related = []
        for i, n in enumerate(d.notes):
            nloc: dict = {"artifactLocation": {"uri": n.path.replace("\\", "/")}}
            if n.line >= 1:
                nloc["region"] = {"startLine": n.line, "startColumn": max(n.col, 1)}
            related.append({"id": i, "physicalLocation": nloc, "message": {"text": n.message}})
        if related:
            result["relatedLocations"] = related
        results.append(result)
    rules = [{"id": c, "shortDescription": {"text": CODES.get(c, c)}} for c in used]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "tile2triton", "version": version,
                                      "rules": rules}},
                  "results": results}],
    }


def render(fmt: str, diagnostics: list[Diagnostic], version: str) -> str:
    """The whole document for a machine format (text is printed as it comes instead)."""
    if fmt == "json":
        return json.dumps([_record(d) for d in diagnostics], indent=2) + "\n"
    if fmt == "github":
        return "".join(github_line(d) + "\n" for d in diagnostics)
    if fmt == "sarif":
        return json.dumps(sarif(diagnostics, version), indent=2) + "\n"
    raise ValueError(fmt)
