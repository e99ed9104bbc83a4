"""Where the daemon's socket is: the daemon's own rule (docs/protocol.md)."""

import os
from typing import Mapping, Optional

SYSTEM_SOCKET = "/run/transitiond/transitiond.sock"


def socket_path(explicit: Optional[str] = None, environ: Optional[Mapping[str, str]] = None) -> str:
    """``explicit`` (a ``--socket`` argument), else ``$TRANSITIOND_SOCKET``,
    else ``$XDG_RUNTIME_DIR/transitiond.sock``, else
    ``/run/transitiond/transitiond.sock``. An empty value counts as unset."""
    env = os.environ if environ is None else environ
    if explicit:
        return explicit
    if env.get("TRANSITIOND_SOCKET"):
        return env["TRANSITIOND_SOCKET"]
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "transitiond.sock")
    return SYSTEM_SOCKET
