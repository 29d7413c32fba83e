import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


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


@pytest.fixture(scope="session")
def rqg_grammars() -> pathlib.Path:
    try:
        return shared_grammars()
    except FileNotFoundError as e:
        pytest.fail(str(e))
