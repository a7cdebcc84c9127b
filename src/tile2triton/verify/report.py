"""Reports of a checking session: terminal lines and table, JSON, and a self-contained HTML page
whose plots are inline SVG drawn here (error per case, error distribution, mismatch heat maps).
"""
from __future__ import annotations

import html
import json
import math
import time
from collections import Counter

from .verdicts import HIST_EDGES, PRIORITY, rank

COLORS = {
    "pass": "#2e7d32", "skipped": "#9e9e9e", "drift": "#ef6c00", "unwritten": "#c62828",
    "out-of-bounds-write": "#ad1457", "illegal-address": "#6a1b9a", "race": "#f9a825",
    "timeout": "#4e342e", "compile-error": "#1565c0", "original-failed": "#37474f",
    "translate-error": "#00838f", "error": "#212121", "not-checked": "#bdbdbd",
    "expected-rejection": "#e0e0e0",
    "both-failed-assert": "#c8e6c9",
}


def _f(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isinf(x) or math.isnan(x):
            return str(x)
        return f"{x:.2e}"
    return str(x)


def label(rec) -> str:
    case = rec.get("case") or "?"
    if rec.get("config"):
        case += f"[{rec['config']}]"
    return case


def progress_line(rec, n_done: int) -> str:
    m = rec.get("metrics") or {}
    kern = rec.get("kernel") or "-"
    if rec.get("launch_index") is not None:
        kern += f"#{rec['launch_index']}"
    seed = f" seed {rec['seed']}" if rec.get("seed") is not None else ""
    extra = ""
    if m:
        extra = f"  max abs {_f(m.get('max_abs'))}  max rel {_f(m.get('max_rel'))}"
    secs = f"  ({rec['seconds']:.1f} s)" if rec.get("seconds") is not None else ""
    return f"[{n_done:4d}] {rec['verdict']:<19} {label(rec)}{seed}  {kern}{extra}{secs}"


def finding_text(f: dict) -> str:
    parts = []
    if f.get("plain"):
        parts.append(f["plain"])
    if f.get("detail"):
        parts.append(f["detail"])
    if f.get("triton_message"):
        parts.append("Triton: " + f["triton_message"].strip().splitlines()[0][:300])
    if f.get("diagnostics"):
        parts.append(f["diagnostics"].strip()[:600])
    if f.get("sanitizer"):
        parts.append("compute-sanitizer:\n" + f["sanitizer"][:1500])
    return "\n".join(parts) or f.get("kind", "")


def why_unjudged(rec) -> str:
    """The reason a launch was skipped or not checked, on one line."""
    text = rec.get("reason") or ""
    for f in rec.get("findings", []):
        if text:
            break
        text = f.get("plain") or f.get("detail") or ""
    text = " ".join(text.split())
    return (text[:237] + "...") if len(text) > 240 else (text or "no reason recorded")


def table(records) -> str:
    cols = ["verdict", "case", "seed", "kernel", "max abs", "max rel", "norm rel", "mismatches"]
    rows = []
    for r in records:
        m = r.get("metrics") or {}
        kern = (r.get("kernel") or "-") + (f"#{r['launch_index']}"
                                           if r.get("launch_index") is not None else "")
        rows.append([r["verdict"], label(r), "" if r.get("seed") is None else str(r["seed"]),
                     kern, _f(m.get("max_abs")), _f(m.get("max_rel")), _f(m.get("norm_rel")),
                     _f(m.get("mismatches"))])
    widths = [max(len(c), *(len(row[i]) for row in rows)) if rows else len(c)
              for i, c in enumerate(cols)]
    widths = [min(w, 60) for w in widths]
    lines = ["  ".join(c.ljust(w) for c, w in zip(cols, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in rows:
        lines.append("  ".join(str(c)[:w].ljust(w) for c, w in zip(row, widths)).rstrip())
    return "\n".join(lines)


def artifacts(records) -> list[dict]:
    """What the launches were checked against (artifacts.py), once each with its count of
    launches: mode (static, static-partial, live, override), file, SHA-256, module."""
    seen: dict = {}
    for r in records:
        a = r.get("artifact")
        if not a:
            continue
        key = (a.get("mode"), a.get("file"), a.get("sha256"), a.get("module"))
        if key not in seen:
            seen[key] = dict(mode=a.get("mode"), file=a.get("file"), sha256=a.get("sha256"),
                             module=a.get("module"), launches=0)
            if a.get("left_out"):
                seen[key]["left_out"] = list(a["left_out"])
        seen[key]["launches"] += 1
    return list(seen.values())


def artifact_lines(records) -> list[str]:
    from .artifacts import artifact_label
    out = []
    for a in artifacts(records):
        what = artifact_label(a)
        out.append(f"  {a['launches']:>5} launch(es): {what}")
        if a.get("left_out"):
            out.append(f"        left out as untranslatable: {'; '.join(a['left_out'][:6])}"
                       + (f"; ... {len(a['left_out']) - 6} more" if len(a["left_out"]) > 6
                          else ""))
    return out


def summary(records, references=()) -> dict:
    counts = Counter(r["verdict"] for r in records)
    bad_refs = [r for r in references if not r.get("ok")]
    ok = all(r["verdict"] in ("pass", "skipped", "expected-rejection", "both-failed-assert")
             for r in records) \
        and not bad_refs
    modes = Counter((r.get("artifact") or {}).get("mode") or "-" for r in records)
    return dict(launches=len(records), verdicts=dict(sorted(counts.items(),
                                                            key=lambda kv: rank(kv[0]))),
                references=len(references), references_failed=len(bad_refs), ok=ok,
                modes=dict(sorted(modes.items())), artifacts=artifacts(records))


def terminal_report(records, references=(), programs=()) -> str:
    out = [table(records)]
    checked = artifact_lines(records)
    if checked:
        out.append("")
        out.append("Checked against:")
        out.extend(checked)
    problems = [r for r in records if r["verdict"] not in ("pass", "skipped",
                                                           "expected-rejection")]
    if problems:
        out.append("")
        out.append("Findings:")
        for r in problems:
            kern = r.get("kernel") or "-"
            from .artifacts import artifact_label
            out.append(f"- {r['verdict']}: {label(r)}"
                       + (f" seed {r['seed']}" if r.get("seed") is not None else "")
                       + f" {kern}"
                       + (f" [{artifact_label(r['artifact'])}]" if r.get("artifact") else ""))
            seen = set()
            for f in r.get("findings", [])[:6]:
                text = finding_text(f)
                if text in seen:
                    continue
                seen.add(text)
                for i, line in enumerate(text.splitlines()[:12]):
                    out.append(("    " if i == 0 else "      ") + line)
            fm = (r.get("metrics") or {}).get("first_mismatch")
            if fm:
                out.append(f"    first mismatch: {fm.get('array')}{tuple(fm['index'])}: "
                           f"translation {fm['actual']}, original {fm['expected']}")
    unjudged = [r for r in records if r["verdict"] in ("skipped", "not-checked")]
    if unjudged:
        out.append("")
        out.append("Not run or not judged, and why:")
        for r in unjudged:
            out.append(f"- {r['verdict']}: {label(r)}"
                       + (f" seed {r['seed']}" if r.get("seed") is not None else "")
                       + f" {r.get('kernel') or '-'}: {why_unjudged(r)}")
    bad_refs = [r for r in references if not r.get("ok")]
    for r in bad_refs:
        outs = ", ".join(f"{k} (max abs {_f(v.get('max_abs'))})"
                         for k, v in r.get("outputs", {}).items() if not v.get("ok"))
        out.append(f"- the original disagrees with the float64 reference: {label(r)} "
                   f"seed {r.get('seed')}: {outs}")
    for p in programs:
        if p.get("returncode"):
            out.append(f"- the program `{p['label']}` exited with status {p['returncode']}")
    s = summary(records, references)
    parts = [f"{n} {v}" for v, n in s["verdicts"].items()]
    modes = ", ".join(f"{m} {n}" for m, n in s["modes"].items() if m != "-")
    line = f"Checked {s['launches']} launch{'es' if s['launches'] != 1 else ''}" + \
        (f" (against: {modes})" if modes else "") + ": " + \
        (", ".join(parts) if parts else "none")
    if references:
        line += (f"; original vs float64 reference: {s['references'] - s['references_failed']}"
                 f"/{s['references']} ok")
    out.append("")
    out.append(line)
    return "\n".join(out)


def json_report(records, backend, references=(), programs=()) -> dict:
    return dict(tool="tile2triton check", version=1, backend=backend,
                created=time.strftime("%Y-%m-%dT%H:%M:%S"),
                summary=summary(records, references),
                launches=[_normalized(r, backend) for r in records],
                references=list(references), programs=list(programs))


def _normalized(rec, backend) -> dict:
    out = dict(case=rec.get("case"), config=rec.get("config"), seed=rec.get("seed"),
               launch_index=rec.get("launch_index"), kernel=rec.get("kernel"),
               backend=rec.get("backend") or backend, verdict=rec["verdict"],
               metrics=rec.get("metrics") or {})
    out.update({k: v for k, v in rec.items() if k not in out})
    return out


def _finite(x):
    """Strict JSON: non-finite floats become the strings "inf", "-inf", "nan"."""
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def write_json(path, records, backend, references=(), programs=()):
    data = _finite(json_report(records, backend, references, programs))
    with open(path, "w") as f:
        json.dump(data, f, indent=1, default=str, allow_nan=False)
        f.write("\n")


# -- HTML / SVG ----------------------------------------------------------------------------------

def _esc(x) -> str:
    return html.escape(str(x), quote=True)


def svg_error_per_case(records) -> str:
    """Horizontal bars: the largest norm-relative error of each case (log scale)."""
    per = {}
    for r in records:
        key = label(r)
        m = r.get("metrics") or {}
        err = m.get("norm_rel")
        worst = per.get(key, (None, "pass"))
        v = worst[0]
        if isinstance(err, (int, float)):
            v = err if v is None else max(v, err)
        verdict = min([worst[1], r["verdict"]], key=rank)
        per[key] = (v, verdict)
    if not per:
        return "<p>No launches.</p>"
    lo, hi = -12, 2
    bar_h, left, width = 18, 300, 420
    h = bar_h * len(per) + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 90}" '
             f'height="{h}" role="img" aria-label="error per case">']
    for e in range(lo, hi + 1, 2):
        x = left + (e - lo) / (hi - lo) * width
        parts.append(f'<line x1="{x:.1f}" y1="10" x2="{x:.1f}" y2="{h - 25}" stroke="#ddd"/>'
                     f'<text x="{x:.1f}" y="{h - 10}" font-size="10" text-anchor="middle">'
                     f'1e{e}</text>')
    for i, (key, (v, verdict)) in enumerate(sorted(per.items())):
        y = 10 + i * bar_h
        if v is None:
            w, txt = 0, "n/a"
        elif v == 0:
            w, txt = 2, "0"
        elif math.isinf(v) or math.isnan(v):
            w, txt = width, str(v)
        else:
            e = min(max(math.log10(v), lo), hi)
            w, txt = max(2.0, (e - lo) / (hi - lo) * width), f"{v:.1e}"
        parts.append(f'<text x="{left - 6}" y="{y + 13}" font-size="11" text-anchor="end">'
                     f'{_esc(key[:48])}</text>'
                     f'<rect x="{left}" y="{y + 2}" width="{w:.1f}" height="{bar_h - 5}" '
                     f'fill="{COLORS.get(verdict, "#000")}"><title>{_esc(key)}: {verdict}, '
                     f'norm-relative error {txt}</title></rect>'
                     f'<text x="{left + w + 4:.1f}" y="{y + 13}" font-size="10">{_esc(txt)}'
                     f'</text>')
    parts.append("</svg>")
    return "".join(parts)


def svg_error_distribution(records) -> str:
    """Histogram of |translation - original| per element, by decade, over all launches."""
    total = None
    for r in records:
        h = r.get("error_hist")
        if h:
            total = list(h) if total is None else [a + b for a, b in zip(total, h)]
    if not total:
        return "<p>No element errors recorded.</p>"
    labels = ["0"] + [f"1e{e}" for e in HIST_EDGES] + ["NaN/inf"]
    bw, left, height = 30, 50, 180
    width = left + bw * len(total) + 20
    top = max(total)
    lmax = math.log10(top + 1) or 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}" '
             'role="img" aria-label="error distribution">']
    for i, c in enumerate(total):
        hh = math.log10(c + 1) / lmax * height
        x = left + i * bw
        color = "#c62828" if i == len(total) - 1 else "#1565c0"
        parts.append(f'<rect x="{x + 2}" y="{10 + height - hh:.1f}" width="{bw - 4}" '
                     f'height="{hh:.1f}" fill="{color}"><title>{labels[i]}: {c} element(s)'
                     f'</title></rect>'
                     f'<text x="{x + bw / 2}" y="{height + 25}" font-size="9" '
                     f'text-anchor="end" transform="rotate(-45 {x + bw / 2} {height + 25})">'
                     f'{labels[i]}</text>')
    parts.append(f'<text x="5" y="15" font-size="10">elements (log)</text>'
                 f'<line x1="{left}" y1="{10 + height}" x2="{width - 10}" y2="{10 + height}" '
                 'stroke="#333"/></svg>')
    return "".join(parts)


def svg_heatmap(hm: dict, cell: int = 8) -> str:
    cells = hm["cells"]
    rows, cols = len(cells), len(cells[0]) if cells else 0
    w, h = cols * cell, rows * cell
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w + 2}" height="{h + 2}" '
             f'role="img" aria-label="mismatch heat map">'
             f'<rect x="0" y="0" width="{w + 2}" height="{h + 2}" fill="#fff" stroke="#999"/>']
    for i, row in enumerate(cells):
        j = 0
        while j < len(row):
            v = row[j]
            k = j
            while k + 1 < len(row) and row[k + 1] == v:
                k += 1
            if v > 0:
                parts.append(f'<rect x="{1 + j * cell}" y="{1 + i * cell}" '
                             f'width="{cell * (k - j + 1)}" height="{cell}" fill="#c62828" '
                             f'fill-opacity="{0.15 + 0.85 * v:.2f}"><title>{v:.0%}</title></rect>')
            j = k + 1
    parts.append("</svg>")
    return "".join(parts)


def html_report(records, backend, references=(), programs=()) -> str:
    s = summary(records, references)
    chips = "".join(f'<span class="chip" style="background:{COLORS.get(v, "#000")}">'
                    f'{_esc(v)}: {n}</span>' for v, n in s["verdicts"].items())
    rows = []
    for r in records:
        m = r.get("metrics") or {}
        details = "".join(f"<pre>{_esc(finding_text(f))}</pre>" for f in r.get("findings", []))
        fm = m.get("first_mismatch")
        if fm:
            details += (f"<p>first mismatch: {_esc(fm.get('array'))}{_esc(tuple(fm['index']))}:"
                        f" translation {_esc(fm['actual'])}, original {_esc(fm['expected'])}</p>")
        if r.get("heatmap"):
            details += f'<p><a href="#heat-{r.get("index", id(r))}">mismatch heat map</a></p>'
        cell = f"<details><summary>details</summary>{details}</details>" if details else ""
        kern = (r.get("kernel") or "-") + (f"#{r['launch_index']}"
                                           if r.get("launch_index") is not None else "")
        rows.append(
            f'<tr><td><span class="chip" style="background:{COLORS.get(r["verdict"], "#000")}">'
            f'{_esc(r["verdict"])}</span></td><td>{_esc(label(r))}</td>'
            f'<td>{_esc("" if r.get("seed") is None else r["seed"])}</td><td>{_esc(kern)}</td>'
            f'<td>{_f(m.get("max_abs"))}</td><td>{_f(m.get("max_rel"))}</td>'
            f'<td>{_f(m.get("norm_rel"))}</td><td>{_f(m.get("mismatches"))}</td>'
            f'<td>{cell}</td></tr>')
    heatmaps = [r for r in records if r.get("heatmap")]
    heat_html = "".join(
        f'<figure id="heat-{r.get("index", id(r))}"><figcaption>{_esc(label(r))} '
        f'{_esc(r.get("kernel"))}: '
        f'<code>{_esc(r["heatmap"].get("array"))}</code> {_esc(tuple(r["heatmap"]["shape"]))}'
        f'</figcaption>{svg_heatmap(r["heatmap"])}</figure>' for r in heatmaps[:24]) \
        or "<p>No 2-D output has mismatches.</p>"
    art_html = "<ul>" + "".join(
        f"<li>{_esc(a['launches'])} launch(es): <b>{_esc(a['mode'])}</b> "
        f"<code>{_esc(a.get('file') or '-')}</code> sha256 <code>{_esc(a.get('sha256') or '-')}"
        f"</code>" + (f" from <code>{_esc(a['module'])}</code>" if a.get("module") else "")
        + (f"<br>left out as untranslatable: {_esc('; '.join(a['left_out']))}"
           if a.get("left_out") else "") + "</li>" for a in s["artifacts"]) + "</ul>"
    bad_refs = [r for r in references if not r.get("ok")]
    ref_html = ""
    if references:
        ref_html = (f"<h2>Original vs float64 reference</h2><p>{len(references) - len(bad_refs)}"
                    f" of {len(references)} configurations agree.</p>")
        if bad_refs:
            ref_html += "<ul>" + "".join(f"<li>{_esc(label(r))} seed {_esc(r.get('seed'))}</li>"
                                         for r in bad_refs) + "</ul>"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>tile2triton check report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em; color: #222; }}
table {{ border-collapse: collapse; font-size: 13px; }}
td, th {{ border-bottom: 1px solid #eee; padding: 3px 8px; text-align: left; vertical-align: top; }}
.chip {{ color: #fff; border-radius: 3px; padding: 1px 6px; margin-right: 4px; font-size: 12px; }}
pre {{ white-space: pre-wrap; max-width: 900px; font-size: 12px; }}
figure {{ display: inline-block; margin: 0 1em 1em 0; }}
figcaption {{ font-size: 12px; }}
</style></head><body>
<h1>tile2triton check</h1>
<p>Backend: <b>{_esc(backend)}</b> ({'reference interpreter vs translation under TRITON_INTERPRET=1'
  if backend == 'cpu' else 'cuTile vs translation on the GPU'}).
{s['launches']} launches. {chips}</p>
<h2>Checked against</h2>
{art_html}
<h2>Error per case</h2>
<p>Largest norm-relative error of the translation against the original, per case
(‖translation − original‖ / ‖original‖), coloured by the case's worst verdict.</p>
{svg_error_per_case(records)}
<h2>Error distribution</h2>
<p>|translation − original| per element over every compared array, by decade.</p>
{svg_error_distribution(records)}
<h2>Mismatch heat maps</h2>
<p>Share of mismatching (or unwritten) elements per cell of 2-D outputs.</p>
{heat_html}
{ref_html}
<h2>Launches</h2>
<table><tr><th>verdict</th><th>case</th><th>seed</th><th>kernel</th><th>max abs</th>
<th>max rel</th><th>norm rel</th><th>mismatches</th><th></th></tr>
{''.join(rows)}
</table>
</body></html>
"""


def write_html(path, records, backend, references=(), programs=()):
    with open(path, "w", encoding="utf-8") as f:
        f.write(html_report(records, backend, references, programs))


__all__ = ["progress_line", "table", "terminal_report", "json_report", "write_json",
           "html_report", "write_html", "summary", "PRIORITY"]
