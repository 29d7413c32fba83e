"""docs/guide/campaigns.md's and performance.md's commands, as the pages show them (doc_blocks.py)."""

import json

import pytest

from doc_blocks import Page, said


def test_the_option_space_and_its_covering_arrays(tmp_path):
    r = Page("docs/guide/campaigns.md", tmp_path).python('space = gauntlet.OptionSpace.from_json', then="""
assert space.count() == 388_800 and (len(plan), plan.negative) == (13, 1), plan
assert {k: plan.coverage()[k] for k in ("tuples", "feasible", "covered", "invalid_rows")} == \\
    {"tuples": 957, "feasible": 939, "covered": 939, "invalid_rows": 0}
t3 = space.covering(3)
assert len(t3) - t3.negative == 44 and len(space.random(12, seed=1)) == 12
""")
    assert r.returncode == 0, said(r)


@pytest.mark.slow
def test_a_campaign_from_python_and_from_the_command_line(tmp_path):
    page = Page("docs/guide/campaigns.md", tmp_path)
    r = page.python("plan = gauntlet.OptionSpace", cap=1, then="""
assert result.counts()["to run"] == 0 and result.counts()["invalid"] == 1, result.counts()
print("MINIMAL", result.minimal_options(row))
""")
    assert r.returncode == 0, said(r)
    r = page.sh("gauntlet campaign examples/mariadb_options.json", cap=1)
    assert r.returncode in (0, 1), said(r)
    rows = [json.loads(line) for line in (tmp_path / "campaign" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 13 and sum(row["status"] == "invalid" for row in rows) == 1, rows


@pytest.mark.slow
def test_an_ab_comparison_from_the_command_line_and_from_python(tmp_path):
    page = Page("docs/guide/performance.md", tmp_path)
    r = page.sh("gauntlet bench --workload oltp_read_write --target A,", cap=1)
    assert r.returncode in (0, 1), said(r)
    verdict = json.loads((tmp_path / "ab" / "verdict.json").read_text())
    assert verdict["settings"]["runs"] == 5 and "throughput" in verdict["verdicts"]["B"], verdict
    r = page.python("result = gauntlet.bench(", cap=1, then="""
assert result.verdicts["B"]["throughput"].verdict in ("regressed", "improved", "same", "unknown")
""")
    assert r.returncode == 0, said(r)
