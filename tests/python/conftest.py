import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# The suite's templates live in a cache of its own, never the user's (gauntlet/runs/templates.py);
# subprocesses inherit it.
os.environ["GAUNTLET_CACHE"] = str(REPO / "build" / "test-cache")


def shared_dir() -> pathlib.Path:
    """The reference material beside the checkout (../shared), or $GAUNTLET_SHARED."""
    return pathlib.Path(os.environ.get("GAUNTLET_SHARED", REPO.parent / "shared"))


def shared_grammars() -> pathlib.Path:
    """../shared/rqg-grammars; without it a test module fails to collect, with the same message as the
    fixture below (never an empty parameter list that skips)."""
    path = shared_dir() / "rqg-grammars"
    if not path.is_dir():
        raise FileNotFoundError(f"RQG reference grammars not found at {path}; set GAUNTLET_SHARED")
    return path


def two_targets(a_options=None, b_options=None, **extra):
    """Two targets named a and b on managed servers, with server options and more keys each."""
    return [{"name": "a", "options": a_options or {}, **extra.get("a", {})},
            {"name": "b", "options": b_options or {}, **extra.get("b", {})}]


@pytest.fixture(scope="session")
def rqg_grammars() -> pathlib.Path:
    try:
        return shared_grammars()
    except FileNotFoundError as e:
        pytest.fail(str(e))


# The real last release: Debian's 10.11.18, fetched once into the suite's cache by the example script.
OLD = "10.11.18"


@pytest.fixture(scope="session")
def release() -> pathlib.Path:
    import fcntl
    import subprocess
    fetch = REPO / "examples" / "two-versions" / "fetch-mariadb.sh"
    folder = pathlib.Path(os.environ["GAUNTLET_CACHE"]) / "servers" / f"mariadb-{OLD}"
    folder.parent.mkdir(parents=True, exist_ok=True)
    with open(folder.parent / f".fetch-{OLD}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other test process waits for one download, then finds it unpacked
        r = subprocess.run(["sh", str(fetch), OLD, str(folder)], capture_output=True, text=True)
    assert r.returncode == 0, f"{fetch} {OLD} failed (it needs Debian's mirror):\n{r.stdout}\n{r.stderr}"
    return folder


# Every file a test's run leaves is checked against its one definition (data/formats): a writer
# that drifts from its schema, in C++ or in Python, fails the test that made it.
_FORMAT_OF = {"summary.json": "summary", "run.json": "run", "finding.json": "finding", "campaign.json": "campaign",
              "verdict.json": "verdict", "query_classes.json": "query-classes", "reduction.json": "reduction",
              "root_causes.json": "root-causes", "surface.json": "surface",
              "corpus.json": "corpus"}
_LINES_OF = {"events.jsonl": "event", "findings.jsonl": "finding", "results.jsonl": "campaign-row",
             "attempts.jsonl": "attempt"}


def check_output_files(root: pathlib.Path, lines_per_file: int = 200) -> int:
    """Validates every output file under ``root``; returns how many were checked."""
    import json
    from gauntlet import formats
    checked = 0
    for path in root.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        name = path.name
        kind = _FORMAT_OF.get(name) or _LINES_OF.get(name) or (
            "statement" if name.startswith("statements-") and name.endswith(".jsonl") else None)
        if kind is None:
            continue
        if name.endswith(".jsonl"):
            raw = path.read_text(errors="surrogateescape").splitlines()
            for number, line in enumerate(raw[:lines_per_file], 1):
                try:
                    record = json.loads(line)
                except ValueError:
                    if number == len(raw):
                        continue  # a torn last line of a killed run
                    raise
                formats.check(kind, record, f"{path}:{number}")
        else:
            formats.check(kind, json.loads(path.read_text()), str(path))
        checked += 1
    return checked


@pytest.fixture(autouse=True)
def _output_files_fit_their_formats(request):
    root = None
    if "tmp_path" in request.fixturenames and not request.node.get_closest_marker("foreign_files"):
        root = request.getfixturevalue("tmp_path")
    yield
    if root is not None:
        check_output_files(root)
