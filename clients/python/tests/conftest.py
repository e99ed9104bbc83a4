"""Fixtures: real daemons in temporary directories (stopped at teardown),
and ``async def`` tests run on a fresh event loop with a time limit."""

import shutil
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from daemon_process import Launcher, binary, run_coroutine_test, supports_websocket  # noqa: E402

#: No test may take longer than this (seconds), whatever it awaits.
TEST_LIMIT = 60


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    return True if run_coroutine_test(pyfuncitem, TEST_LIMIT) else None


@pytest.fixture(scope="session", autouse=True)
def daemon_binary() -> str:
    return binary()


@pytest.fixture
def workdir():
    # Short: a Unix socket path must fit in 108 bytes.
    path = Path(tempfile.mkdtemp(prefix="tdpy-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def launcher(workdir):
    launcher = Launcher(workdir)
    yield launcher
    launcher.stop_all()


@pytest.fixture(params=["unix", "websocket"])
def transport(request) -> str:
    """Runs a test once over each transport (the WebSocket one is skipped
    when the binary has no ``--websocket``)."""
    if request.param == "websocket" and not supports_websocket():
        pytest.skip("this transitiond has no --websocket")
    return request.param
