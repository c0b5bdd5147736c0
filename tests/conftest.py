import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).parent))


def jitlint_exe() -> str:
    """The installed `jitlint` console script (next to this interpreter), as a user would run it."""
    exe = Path(sys.executable).with_name("jitlint")
    if exe.exists():
        return str(exe)
    found = shutil.which("jitlint")
    assert found, "the jitlint command is not installed; run `pip install -e .[dev]`"
    return found


@pytest.fixture
def run_jitlint():
    def run(*args, cwd=None, input=None, env=None):
        full_env = dict(os.environ)
        full_env.pop("JITLINT_CONFIG", None)
        if env:
            full_env.update(env)
        return subprocess.run([jitlint_exe(), *map(str, args)], cwd=cwd, input=input, capture_output=True,
                              text=True, env=full_env, timeout=120)
    return run


# Fixtures that start a jitlint process: any test using one is `slow` (deselected by `pytest -m "not slow"`),
# wherever it is and whether or not its module says so.
SLOW_FIXTURES = {"run_jitlint", "wire_lsp"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())) and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)


def pytest_addoption(parser):
    parser.addoption("--update-snapshots", action="store_true", default=False,
                     help="rewrite tests/snapshots/ from what jitlint reports now (then review the diff)")


@pytest.fixture
def update_snapshots(request) -> bool:
    return request.config.getoption("--update-snapshots")


@pytest.fixture(scope="module")
def wire_lsp(tmp_path_factory):
    """One `jitlint lsp` per test module, driven over stdio by a bare JSON-RPC client (tests/lspwire.py),
    initialized on an empty workspace (`.root`); `.docs` counts documents a test opened, for unique names."""
    from lspwire import WireClient

    root = tmp_path_factory.mktemp("lsp")
    client = WireClient(cwd=root)
    client.initialize(root)
    client.root = root
    client.docs = 0
    yield client
    client.close()

