"""examples/ci: the GitHub Actions workflow and the GitLab CI file parse as YAML, have the keys each CI
requires, hunt in a shard matrix, publish the JUnit XML and keep the report and findings; and every
`gauntlet` command in them is one the command line accepts."""

import re
import shlex

import pytest
import yaml

from conftest import REPO
from gauntlet.cli.main import build_parser

CI = REPO / "examples" / "ci"
# What the CIs put in for their variables, so that the command lines can be parsed.
VALUES = {"${{ matrix.shard }}": "2", "$CI_NODE_INDEX": "2", "$CI_NODE_TOTAL": "4", "$NEW_SERVER": "default",
          "$LAST_RELEASE": "10.11.18"}


def commands(text: str) -> list:
    """Each `gauntlet ...` command line of the shell in the file, its variables filled in."""
    for k, v in VALUES.items():
        text = text.replace(k, v)
    joined = re.sub(r"\\\n\s*", " ", text)
    return [shlex.split(m.group(1)) for m in re.finditer(r"(?:^|[\s\-|]\s*)gauntlet ((?:hunt|triage|run)\b[^\n]*)",
                                                          joined)]


def accepted(argv: list) -> None:
    parser = build_parser()
    try:
        parser.parse_args(argv)
    except SystemExit:
        pytest.fail(f"gauntlet {' '.join(argv)}: the command line refuses it")


def test_the_github_actions_workflow():
    text = (CI / "github-actions.yml").read_text()
    flow = yaml.safe_load(text)
    triggers = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert flow["name"] and triggers and "push" in triggers
    for name, job in flow["jobs"].items():
        assert job["runs-on"] and job["steps"], name
        for step in job["steps"]:
            assert ("run" in step) != ("uses" in step), step
    hunt = flow["jobs"]["hunt"]
    assert hunt["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    uses = [s["uses"].split("@")[0] for s in hunt["steps"] if "uses" in s]
    assert "actions/upload-artifact" in uses and "mikepenz/action-junit-report" in uses
    assert all(s.get("if") == "always()" for s in hunt["steps"] if "uses" in s)
    assert flow["jobs"]["triage"]["needs"] == "hunt"
    found = commands(text)
    assert [c[0] for c in found] == ["hunt", "triage"]
    assert "--shard" in found[0] and found[0][found[0].index("--shard") + 1] == "2/4"
    for argv in found:
        accepted(argv)


def test_the_gitlab_ci_file():
    text = (CI / "gitlab-ci.yml").read_text()
    pipeline = yaml.safe_load(text)
    assert pipeline["stages"] == ["hunt", "triage"]
    jobs = {k: v for k, v in pipeline.items() if isinstance(v, dict) and "script" in v and not k.startswith(".")}
    assert set(jobs) == {"hunt", "triage"}
    for name, job in jobs.items():
        assert job["stage"] in pipeline["stages"] and job["image"] == "debian:12" and job["before_script"], name
    hunt = jobs["hunt"]
    assert hunt["parallel"] == 4 and hunt["artifacts"]["when"] == "always"
    assert hunt["artifacts"]["reports"]["junit"] == "hunt-*/junit.xml"
    assert "hunt-*/*.html" in hunt["artifacts"]["paths"] and "hunt-*/rounds/*/findings" in hunt["artifacts"]["paths"]
    assert jobs["triage"]["when"] == "always" and jobs["triage"]["needs"][0]["job"] == "hunt"
    found = commands(text)
    assert [c[0] for c in found] == ["hunt", "triage"]
    assert found[0][found[0].index("--shard") + 1] == "2/4"
    for argv in found:
        accepted(argv)
