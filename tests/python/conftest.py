import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def shared_dir() -> pathlib.Path:
    """The reference material beside the checkout (../shared), or $GAUNTLET_SHARED."""
    return pathlib.Path(os.environ.get("GAUNTLET_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def rqg_grammars() -> pathlib.Path:
    path = shared_dir() / "rqg-grammars"
    if not path.is_dir():
        pytest.fail(f"RQG reference grammars not found at {path}; set GAUNTLET_SHARED")
    return path
