"""emit/shared_offsets.py: offsets and masks a block computes twice are computed once, and only
where the second line would compute the same value."""
from tile2triton.emit.shared_offsets import shared_offsets

BODY = """\
    offs_a0 = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    a = tl.load(a_ptr + offs_a0 * a_stride0)
    offs_b0 = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)
    tl.store(b_ptr + offs_b0 * b_stride0, a)
"""


def test_a_repeated_offsets_line_is_computed_once():
    out = shared_offsets(BODY)
    assert "offs_b0" not in out and "offs_a0" not in out
    # read by two arrays, the offsets are named after neither
    assert "    offs_pid = tl.cast(pid, OFFSET_DTYPE) * TILE + tl.arange(0, TILE)" in out
    assert "tl.store(b_ptr + offs_pid * b_stride0, a)" in out


def test_offsets_of_one_array_keep_its_name_and_a_neutral_name_is_never_taken():
    one = BODY.replace("offs_b0", "offs_a0_2").replace("b_ptr", "a_ptr").replace("b_s", "a_s")
    out = shared_offsets(one)
    assert "offs_a0_2" not in out and "tl.store(a_ptr + offs_a0 * a_stride0, a)" in out
    taken = BODY + "    offs_pid = 3\n"
    out = shared_offsets(taken)
    assert "tl.store(b_ptr + offs_pid_2 * b_stride0, a)" in out and "    offs_pid = 3" in out
    # an index that is no plain name: the dimension
    out = shared_offsets(BODY.replace("cast(pid,", "cast(pid + 1,"))
    assert "tl.store(b_ptr + offs0 * b_stride0, a)" in out


def test_not_after_a_name_it_reads_is_rebound():
    body = BODY.replace("    offs_b0", "    pid = pid + 1\n    offs_b0", 1)
    assert shared_offsets(body) == body


def test_not_across_blocks():
    body = BODY.replace("    offs_b0 = ", "    if pid > 0:\n        offs_b0 = ").replace(
        "    tl.store(", "        tl.store(")
    assert shared_offsets(body) == body


def test_not_for_a_name_bound_twice_or_an_impure_line():
    twice = BODY + "    offs_b0 = offs_b0 + 1\n"
    assert shared_offsets(twice) == twice
    loads = BODY.replace("tl.arange(0, TILE)", "tl.load(p)")
    assert shared_offsets(loads) == loads


def test_a_form_feed_in_a_string_leaves_the_body_as_it_is():
    # (str.splitlines breaks at a form feed where the parser does not: lines would shift)
    body = '    """a\fb"""\n' + BODY
    assert shared_offsets(body) == body
