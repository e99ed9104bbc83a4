"""The package's pure parts against the daemon's real output: decoding and
re-encoding every line of real replays, and the socket path rule."""

import pytest

import transitiond_client as tc
from daemon_process import EXAMPLE_CONFIG, fast_lines


@pytest.mark.parametrize("recording,config", [
    ("Recordings/back-drag-finish.events", None),
    ("Recordings/back-flick-back-cancel.events", EXAMPLE_CONFIG),
    ("Recordings/forward-edge-right-spring.events", EXAMPLE_CONFIG),
    ("Recordings/pinch-in-2-fingers.events", EXAMPLE_CONFIG),
])
def test_every_daemon_line_reencodes_to_the_same_bytes(recording, config):
    lines = fast_lines(*(["--config", config] if config else []), recording)
    assert len(lines) > 10
    for line in lines:
        event = tc.decode(line)
        assert event is not None and event.raw == line
        # Synthetic events are written with this encoder: it must write
        # numbers and fields exactly as the daemon does.
        assert tc.encode(dict(event)) == line


def test_decode_keeps_unknown_fields_and_refuses_non_objects():
    event = tc.decode(b'{"type":"began","transition":"back","seq":3,"future":{"x":[1]}}')
    assert event.type == "began" and event.transition == "back" and event["future"] == {"x": [1]}
    assert not event.synthetic and event.is_transition_event
    assert tc.decode(b"[1,2]") is None and tc.decode(b"{nope") is None


def test_numbers_are_written_like_the_daemon():
    assert [tc.format_number(x) for x in (0, 1, 1.0, -0.0, 0.1234567, 2.5e-7, 12345678901234, -3.25)] == \
        ["0", "1", "1", "0", "0.123457", "0", "12345678901234", "-3.25"]


def test_socket_path_rule():
    env = {"TRANSITIOND_SOCKET": "/a.sock", "XDG_RUNTIME_DIR": "/run/user/7"}
    assert tc.socket_path("/x.sock", env) == "/x.sock"
    assert tc.socket_path(None, env) == "/a.sock"
    assert tc.socket_path("", dict(env, TRANSITIOND_SOCKET="")) == "/run/user/7/transitiond.sock"
    assert tc.socket_path(None, {"XDG_RUNTIME_DIR": "/run/user/7/"}) == "/run/user/7/transitiond.sock"
    assert tc.socket_path(None, {"XDG_RUNTIME_DIR": ""}) == "/run/transitiond/transitiond.sock"
    assert tc.socket_path(None, {}) == tc.SYSTEM_SOCKET == "/run/transitiond/transitiond.sock"
