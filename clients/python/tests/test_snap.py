"""Snap points (docs/snap-points.md) through the client: the mirror's
``snap_points``, ``rest``, ``target`` and ``index``, and ``run`` to a point,
against a real daemon over each transport; and the mirror alone."""

import pytest

import transitiond_client as tc
from daemon_process import ROOT, fast_lines, where

#: A carousel of three pages (0, 0.5, 1) that a one-finger swipe left drives.
CAROUSEL = "Recordings/snap/carousel.toml"
DRAWER = "Recordings/snap/drawer.toml"
#: A replay that makes no event on the carousel's config: a daemon that only answers commands.
QUIET = "Recordings/swipe-up-3-fingers.events"
WAIT = 15


def of(kind, name=None):
    return lambda e: e.type == kind and (name is None or e.transition == name)


def carousel_and_back(workdir):
    """The carousel and a transition without snap points, in one config."""
    path = workdir / "carousel-and-back.toml"
    path.write_text((ROOT / CAROUSEL).read_text()
                    + '\n[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n')
    return str(path)


async def run_to(client, name, **goal):
    """``run`` and the events up to its ``finished``: (began, ended, animating…, finished)."""
    assert (await client.run(name, **goal))["type"] == "ok"
    seen = [e for e in await client.wait_for(of("finished", name), WAIT) if e.transition == name]
    assert [e.type for e in seen][:2] == ["began", "ended"] and seen[-1].type == "finished"
    assert {e.type for e in seen[2:-1]} <= {"animating"}
    return seen


async def test_run_to_a_point_and_rest_in_state_and_a_new_hello(launcher, workdir, transport):
    daemon = launcher.replay(QUIET, hold=True, config=carousel_and_back(workdir),
                             websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        entries = {t["name"]: t for t in client.hello["transitions"]}
        assert entries["carousel"]["snap_points"] == [0, 0.5, 1] and entries["carousel"]["rest"] == 0
        assert "snap_points" not in entries["back"] and "rest" not in entries["back"]
        carousel, back = client.transitions["carousel"], client.transitions["back"]
        assert (carousel.snap_points, carousel.rest, carousel.progress) == ([0, 0.5, 1], 0, 0)
        assert (back.snap_points, back.rest) == (None, None)

        # to a point by its progress: from where it rests (0) to 0.5
        seen = await run_to(client, "carousel", to=0.5)
        began, ended, finished = seen[0], seen[1], seen[-1]
        assert began["progress"] == 0
        assert (ended["decision"], ended["reason"], ended["target"], ended["index"]) == ("snap", "command", 0.5, 1)
        assert list(ended)[-3:] == ["reason", "target", "index"], "target and index come after the reason"
        assert all(e["target"] == 0.5 for e in seen[2:-1])
        assert finished["progress"] == 0.5
        assert (carousel.phase, carousel.progress, carousel.rest, carousel.decision, carousel.index,
                carousel.target, carousel.finished, carousel.cancelled) == \
            ("idle", 0.5, 0.5, "snap", 1, None, 1, 0)

        # state says where it rests, and resetting the mirror from it keeps that
        state = await client.state()
        assert [t.get("rest") for t in state["transitions"]] == [0.5, None]
        carousel = client.transitions["carousel"]            # a state reply makes the mirror afresh
        assert (carousel.rest, carousel.progress, carousel.snap_points) == (0.5, 0.5, [0, 0.5, 1])

        # by its index: from 0.5 to the last point
        seen = await run_to(client, "carousel", index=2)
        assert seen[0]["progress"] == 0.5
        assert (seen[1]["decision"], seen[1]["target"], seen[1]["index"]) == ("snap", 1, 2)
        assert seen[-1]["progress"] == 1 and carousel.rest == 1 and carousel.index == 2

    # a new connection's hello shows where it rests, and its mirror starts there
    async with await tc.connect(**where(daemon, transport)) as again:
        entry = next(t for t in again.hello["transitions"] if t["name"] == "carousel")
        assert entry["rest"] == 1
        carousel = again.transitions["carousel"]
        assert (carousel.phase, carousel.rest, carousel.progress) == ("idle", 1, 1)

        # the old API on a snap transition: cancel is its first point, finish its last
        seen = await run_to(again, "carousel", to="cancel")
        assert (seen[0]["progress"], seen[1]["decision"], seen[1]["target"], seen[1]["index"]) == (1, "snap", 0, 0)
        assert seen[-1].type == "finished" and seen[-1]["progress"] == 0 and carousel.rest == 0
        seen = await run_to(again, "carousel")
        assert (seen[1]["decision"], seen[1]["target"], seen[1]["index"]) == ("snap", 1, 2)
        assert carousel.rest == 1
        # and a transition without snap points as before
        seen = await run_to(again, "back", to="finish")
        assert seen[1]["decision"] == "finish" and "target" not in seen[1] and "index" not in seen[1]
        assert again.transitions["back"].rest is None and again.transitions["back"].target is None


async def test_a_point_the_transition_lacks_is_bad_field(launcher, workdir, transport):
    daemon = launcher.replay(QUIET, hold=True, config=carousel_and_back(workdir),
                             websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        refusals = []
        for name, goal in [("carousel", {"to": 0.25}), ("carousel", {"index": 3}), ("back", {"to": 0.5}),
                           ("back", {"index": 1}), ("carousel", {"to": 0.5, "index": 1}),
                           ("carousel", {"to": 1.5}), ("carousel", {"to": "snap"})]:
            with pytest.raises(tc.CommandError) as refused:
                await client.run(name, **goal)
            assert refused.value.code == "bad-field", (name, goal, refused.value.reply)
            assert refused.value.reply["cmd"] == "run"
            refusals.append(refused.value.reply["message"])
        assert "no such snap point" in refusals[0] and "0, 0.5, 1" in refusals[0]
        assert "no snap points" in refusals[2]
        assert "not both" in refusals[4]
        # nothing moved
        assert (await client.state())["active"] == []
        assert client.transitions["carousel"].rest == 0 and client.transitions["carousel"].finished == 0


async def test_a_cancelled_drive_snaps_back_to_where_it_began(launcher, workdir, transport):
    daemon = launcher.replay(QUIET, hold=True, config=carousel_and_back(workdir),
                             websocket=transport == "websocket")
    async with await tc.connect(**where(daemon, transport)) as client:
        await run_to(client, "carousel", index=1)
        await client.drive("carousel", 0.7)
        began = (await client.wait_for(of("began", "carousel"), WAIT))[-1]
        assert began["progress"] == 0.7
        carousel = client.transitions["carousel"]
        assert (carousel.phase, carousel.decision, carousel.index) == ("interacting", None, None)
        await client.cancel("carousel")
        seen = await client.wait_for(of("finished", "carousel"), WAIT)
        ended = next(e for e in seen if e.type == "ended")
        assert (ended["decision"], ended["reason"], ended["target"], ended["index"]) == ("snap", "command", 0.5, 1)
        assert not any(e.type == "cancelled" for e in seen)
        assert (carousel.phase, carousel.rest, carousel.finished, carousel.cancelled) == ("idle", 0.5, 2, 0)


def test_every_snap_line_reencodes_to_the_same_bytes():
    lines = fast_lines("--config", DRAWER, "Recordings/back-drag-finish.events", "Recordings/back-drag-cancel.events")
    ended = [tc.decode(line) for line in lines if b'"type":"ended"' in line]
    assert [(e["decision"], e["target"], e["index"]) for e in ended] == [("snap", 0.5, 1), ("snap", 1, 2)]
    for line in lines:
        assert tc.encode(dict(tc.decode(line))) == line


def test_the_mirror_follows_snap_points_alone():
    mirror = tc.Mirror()
    mirror.apply({"type": "hello", "protocol": 1, "seq": 4, "active": [], "transitions": [
        {"name": "drawer", "gesture": "edge-pan", "fingers": 1, "edge": "left", "snap_points": [0, 0.5, 1], "rest": 0.5},
        {"name": "back", "gesture": "edge-pan", "fingers": 1, "edge": "left"}]})
    drawer = mirror["drawer"]
    assert (drawer.snap_points, drawer.rest, drawer.progress) == ([0, 0.5, 1], 0.5, 0.5)
    assert (mirror["back"].snap_points, mirror["back"].rest, mirror["back"].progress) == (None, None, 0)
    event = {"transition": "drawer", "time": 1, "velocity": 0, "values": {}}
    mirror.apply(dict(event, type="began", seq=5, progress=0.55))
    mirror.apply(dict(event, type="ended", seq=6, progress=0.9, velocity=0.2, decision="snap", reason="released",
                      target=1, index=2))
    assert (drawer.phase, drawer.decision, drawer.target, drawer.index, drawer.rest) == ("animating", "snap", 1, 2, 0.5)
    # a connection lost now: the synthetic cancelled goes to where it rests, not to 0
    [synthetic] = mirror.synthetic_cancellations()
    assert (synthetic["progress"], synthetic["values"], synthetic.synthetic) == (0.5, {}, True)
    mirror.apply(dict(event, type="animating", seq=7, progress=0.95, target=1))
    mirror.apply(dict(event, type="finished", seq=8, progress=1))
    assert (drawer.phase, drawer.target, drawer.rest, drawer.finished, drawer.index) == ("idle", None, 1, 1, 2)
    mirror.apply(dict(event, type="began", seq=9, progress=0.9))
    assert (drawer.decision, drawer.index, drawer.target) == (None, None, None)
    # a late snapshot of one animating: its decision is snap
    mirror.apply({"type": "state", "seq": 12, "transitions": [
        {"name": "drawer", "gesture": "edge-pan", "fingers": 1, "edge": "left", "snap_points": [0, 0.5, 1], "rest": 1}],
        "active": [{"transition": "drawer", "phase": "animating", "progress": 0.7, "values": {}, "target": 0.5}]})
    drawer = mirror["drawer"]
    assert (drawer.phase, drawer.progress, drawer.target, drawer.decision, drawer.rest) == \
        ("animating", 0.7, 0.5, "snap", 1)
