"""The terminal report says why a launch was skipped or not checked (the reason was only in the
JSON and HTML reports before)."""
from tile2triton.verify import report


def test_skipped_and_not_checked_reasons_in_terminal_report():
    recs = [
        dict(case="rows", config="bf16", seed=3, launch_index=0, kernel="softmax",
             verdict="skipped", findings=[dict(kind="skipped", detail="configuration marked "
                                               "cpu=False (bfloat16 arithmetic)")]),
        dict(case="prog", kernel="k", verdict="not-checked",
             reason="the kernel refers to a global that is not a constant (T2T110)",
             findings=[dict(kind="not-checked", detail="ignored: the record's reason wins")]),
        dict(case="bare", kernel=None, verdict="skipped", findings=[]),
        dict(case="ok", kernel="k", verdict="pass", findings=[]),
    ]
    text = report.terminal_report(recs)
    section = text[text.index("Not run or not judged, and why:"):]
    assert "- skipped: rows[bf16] seed 3 softmax: configuration marked cpu=False (bfloat16 " \
        "arithmetic)" in section
    assert "- not-checked: prog k: the kernel refers to a global that is not a constant " \
        "(T2T110)" in section
    assert "- skipped: bare -: no reason recorded" in section
    assert ": ok k" not in section  # a pass is not listed
    assert text.rstrip().splitlines()[-1].startswith("Checked 4 launches")


def test_long_reason_is_one_bounded_line():
    rec = dict(case="c", kernel="k", verdict="skipped",
               findings=[dict(kind="skipped", detail="word\n" * 200)])
    line = report.why_unjudged(rec)
    assert "\n" not in line and len(line) == 240 and line.endswith("...")
