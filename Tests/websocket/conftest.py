"""Fixtures of the WebSocket conformance tests: real daemons (the daemon
harness is the client package's test one: clients/python/tests/
daemon_process.py) and ``async def`` tests on a fresh loop, time-limited.
The tests need a transitiond with the WebSocket transport."""

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "clients" / "python" / "tests"))

from daemon_process import Launcher, binary, run_coroutine_test, supports_websocket  # noqa: E402

TEST_LIMIT = 90


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    return True if run_coroutine_test(pyfuncitem, TEST_LIMIT) else None


@pytest.fixture(scope="session", autouse=True)
def websocket_daemon() -> str:
    """The binary; the whole suite fails (not skips) without the transport."""
    exe = binary()
    if not supports_websocket():
        pytest.fail(f"{exe} has no --websocket: the conformance tests need the WebSocket transport")
    return exe


@pytest.fixture
def workdir():
    path = Path(tempfile.mkdtemp(prefix="tdws-"))
    path.chmod(0o755)           # a test runs a client as another user from here
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def launcher(workdir):
    launcher = Launcher(workdir)
    yield launcher
    launcher.stop_all()
