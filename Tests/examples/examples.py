#!/usr/bin/env python3
"""Runs every marked example of the project's documentation.

    python3 Tests/examples/examples.py [--transitiond BINARY] [--list] [FILTER…]
    python3 Tests/examples/examples.py --extract systemd DIR

The documents are README.md, docs/*.md and docs/*/*.md, and
clients/*/README.md; not docs/benchmarks.md, which bench/run generates
from bench/benchmarks.md.in: its blocks are the benchmarks' own commands,
minutes each, which bench/run itself runs. FILTERs keep only the examples
whose FILE:LINE contains one of them. Every fenced block in them
needs a mark, an HTML comment on the line just before its fence (a block
without one fails, so that no new example goes untested):

    <!-- example: KIND[; OPTION]… -->

KIND is one of
    run             run it as written (see "How a block runs")
    daemon [ARGS]   the same, with `transitiond replay --socket SOCKET ARGS`
                    serving for it (ARGS default: --wait-clients 1
                    Recordings/back-drag-finish.events); `daemon run ARGS`
                    starts `transitiond run --socket SOCKET ARGS` instead
                    (the live daemon, waiting for a touchscreen); SOCKET is
                    $XDG_RUNTIME_DIR/transitiond.sock, or the `--socket PATH`
                    the example names, and $TRANSITIOND_SOCKET is set to it;
                    a `ws://HOST:PORT` in the example adds `--websocket
                    HOST:PORT`
    fragment        TOML that is part of a config: `transitiond check-config`
                    of it, with a one-transition config added when it has
                    no [[transition]] (a [server] table alone, say)
    file NAME       a file later blocks of the same document use: written
                    as NAME into their folder (with `check CMD`, also run as
                    an example of its own: CMD on it)
    systemd         needs root and a booted systemd with the project
                    installed: listed as skipped here; `--extract systemd
                    DIR` writes each such block as a script for a guest
                    that has them (lines left out by `skip line` are
                    commented out, with why)
    skip: WHY       not run; listed, with why

OPTIONS (separated by "; ", which no option's value may contain):
    each line       every command line of the block is an example of its
                    own (alternatives, not a script); `skip line N[,M]: WHY`
                    leaves some out, with why
    timeout N       seconds it may take (default 30); longer fails
    exit N          the exit status it must end with (default 0)
    interrupt N     a command that runs until Ctrl-C: after N seconds it
                    must still be running, and is sent SIGINT, as Ctrl-C
                    does, after which it must end within 5 s with 0 or by
                    the signal
    while CMD       a command to run (in the same folder and environment)
                    while the example runs, once it has started; CMD must
                    exit 0, after which the example is interrupted as above
    then CMD        a command to run after it (in the same folder and
                    environment), which must exit 0: a check of what it made
                    ($EXAMPLES_HELPERS is this folder, for its checks)
    expect TEXT     its output (stdout and stderr) must contain TEXT
    given NAME=PATH… files an earlier step of the document made (a
                    recording from the panel, a config of one's own): PATH,
                    a file of the repository, is copied to NAME first
    needs TOOL…     commands it needs; a missing one is installed with
                    apt-get where possible, else the example is skipped
                    (`needs root`: skipped unless the test runs as root)
    unset VAR…      variables the example must do without (its daemon's
                    socket stays where it is; $TRANSITIOND_SOCKET names it)
    terminal        stdout and stderr are a terminal (a pseudo-terminal,
                    80x24), for the live view
    wrap client     Python: the block is the body of an async function with
                    `client` = `await transitiond_client.connect()`
    browser         JavaScript written for a page (a `js` block, or an
                    `html` block's <script type="module">): run in Node with
                    `location` at the daemon's WebSocket and a stub
                    `document` whose style logs each --NAME-progress set

How a block runs: in a fresh copy of the repository (sources, docs,
recordings, configs, bin/, clients/; not .git, .build or Tests/), in which
`bin/transitiond` runs the binary under test instead of building one, with
that binary first on PATH as `transitiond`, a `swift` that answers only
`swift run stream-client-example ARGS` (with the example built beside the
binary by `swift build`), a virtual environment's python3/pip (kept in
${XDG_CACHE_HOME:-~/.cache}/transitiond/examples-venv, with `websockets`,
`paho-mqtt` and the client package installed), $XDG_RUNTIME_DIR a fresh empty folder,
stdin an open pipe nobody writes to (a terminal nobody types into).
`sh` blocks run with `bash -e`, `python` with python3, `js` with node (Node
20: --experimental-websocket), `toml` with `transitiond check-config`,
`json` must parse (as a whole, or every line). Each example ends within its
timeout, and any daemon started for it is stopped.

Prints a line per example (`ok   FILE:LINE LANG`, `skip FILE:LINE LANG: why`,
`FAIL FILE:LINE LANG: why` and the output), then
`examples: N passed, M failed, K skipped`; exits 1 on any failure.
"""

import argparse
import glob
import json
import os
import pty
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
EXCLUDED = {"docs/benchmarks.md"}
DEFAULT_REPLAY = ["--wait-clients", "1", "Recordings/back-drag-finish.events"]
BASE_TRANSITION = '\n[[transition]]\nname = "back"\ngesture = "edge-pan"\nedge = "left"\n'
COPY_SKIP = {".git", ".build", ".swiftpm", "Tests", "dist"}
MARK = re.compile(r"^\s*<!--\s*example:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$")
BROWSER_SHIM = """\
// Added by the examples test: what a page has that Node has not.
globalThis.location = { host: process.env.EXAMPLE_WEBSOCKET_HOST };
const style = { setProperty(name, value) { if (name.endsWith('-progress')) console.log(name, value); },
                removeProperty() {} };
globalThis.document = { body: { style }, getElementById: () => ({ style }) };
globalThis.requestAnimationFrame = (f) => setTimeout(() => f(performance.now()), 1000 / 60);
globalThis.cancelAnimationFrame = (h) => clearTimeout(h);
"""


def documents(root):
    names = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)) \
        + sorted(glob.glob("docs/*/*.md", root_dir=root)) + sorted(glob.glob("clients/*/README.md", root_dir=root))
    return [n for n in names if n not in EXCLUDED]


class Block:
    def __init__(self, doc, line, lang, text, mark):
        self.doc, self.line, self.lang, self.text, self.mark = doc, line, lang, text, mark
        self.kind, self.arg, self.options = parse_mark(mark) if mark is not None else (None, None, {})

    @property
    def where(self):
        return f"{self.doc}:{self.line} {self.lang or 'text'}"


def parse_mark(mark):
    if mark.startswith("skip:"):
        return "skip", mark[5:].strip(), {}
    parts = [p.strip() for p in re.split(r";\s+", mark)]
    head, options = parts[0], {}
    kind, _, arg = head.partition(" ")
    for part in parts[1:]:
        m = re.match(r"(each line|skip line|wrap|while|then|expect|given|needs|unset|timeout|exit|interrupt|terminal|browser|check)\b:?\s*(.*)$",
                     part, re.S)
        if not m:
            raise ValueError(f"unknown option '{part}'")
        key, value = m.group(1), m.group(2)
        if key == "skip line":
            numbers, _, why = value.partition(":")
            for n in numbers.split(","):
                options.setdefault("skip line", {})[int(n)] = why.strip()
        else:
            options[key] = value
    if kind not in ("run", "daemon", "fragment", "file", "systemd"):
        raise ValueError(f"unknown kind '{kind}'")
    return kind, arg.strip(), options


def extract(root, doc):
    lines = open(os.path.join(root, doc), encoding="utf-8").read().split("\n")
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3)
        start = i
        body = []
        i += 1
        while i < len(lines) and not (lines[i].strip() == fence and lines[i].startswith(indent)):
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        i += 1
        prev = lines[start - 1] if start > 0 else ""
        mm = MARK.match(prev)
        blocks.append(Block(doc, start + 1, lang, "\n".join(body) + "\n", mm.group(1) if mm else None))
    return blocks


# MARK: The environment


class Environment:
    def __init__(self, root, binary, scratch):
        self.root, self.binary, self.scratch = root, binary, scratch
        self.template = os.path.join(scratch, "template")
        self.shims = os.path.join(scratch, "shims")
        self.venv = None
        self.venv_error = None
        self.missing_tools = {}
        self._copy_template()
        self._make_shims()

    def _copy_template(self):
        def ignore(folder, names):
            if os.path.abspath(folder) == self.root:
                return [n for n in names if n in COPY_SKIP or n.startswith(".build")]
            return []
        shutil.copytree(self.root, self.template, symlinks=True, ignore=ignore)
        wrapper = os.path.join(self.template, "bin", "transitiond")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n# The examples test: the binary under test, not a release build.\n"
                    f"exec {shlex.quote(self.binary)} \"$@\"\n")
        os.chmod(wrapper, 0o755)

    def _make_shims(self):
        os.makedirs(self.shims)
        os.symlink(self.binary, os.path.join(self.shims, "transitiond"))
        example = os.path.join(os.path.dirname(self.binary), "stream-client-example")
        with open(os.path.join(self.shims, "swift"), "w") as f:
            f.write("#!/bin/sh\n# The examples test: `swift run stream-client-example` runs the one swift build made.\n"
                    "if [ \"$1\" = run ] && [ \"$2\" = stream-client-example ]; then\n"
                    f"  shift 2; exec {shlex.quote(example)} \"$@\"\nfi\n"
                    "echo \"examples test: only 'swift run stream-client-example' is available here\" >&2\nexit 64\n")
        os.chmod(os.path.join(self.shims, "swift"), 0o755)
        self.stream_client_example = example if os.access(example, os.X_OK) else None

    def python(self):
        """The virtual environment's bin folder, made (once) with websockets and the client package."""
        if self.venv or self.venv_error:
            return self.venv
        cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        venv = os.path.join(cache, "transitiond", "examples-venv")
        vpy = os.path.join(venv, "bin", "python")
        try:
            if not os.access(vpy, os.X_OK) or subprocess.run([vpy, "-c", "import sys"], capture_output=True).returncode:
                shutil.rmtree(venv, ignore_errors=True)
                os.makedirs(os.path.dirname(venv), exist_ok=True)
                subprocess.run([sys.executable, "-m", "venv", venv], check=True, capture_output=True)
            missing = []
            if subprocess.run([vpy, "-c", "import websockets.asyncio.client"], capture_output=True).returncode:
                missing.append("websockets>=13")
            # The client package's MQTT bridge (its mqtt extra).
            if subprocess.run([vpy, "-c", "import paho.mqtt.enums"], capture_output=True).returncode:
                missing.append("paho-mqtt>=2,<3")
            if subprocess.run([vpy, "-c", "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 61)"],
                              capture_output=True).returncode:
                missing.append("setuptools>=61")
            if subprocess.run([vpy, "-c", "import wheel"], capture_output=True).returncode:
                missing.append("wheel")
            if missing:
                subprocess.run([vpy, "-m", "pip", "install", "-q", *missing], check=True, capture_output=True)
            client = os.path.join(self.scratch, "client-package")
            shutil.copytree(os.path.join(self.template, "clients", "python"), client)
            subprocess.run([vpy, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                            "--force-reinstall", client], check=True, capture_output=True)
            self.venv = os.path.join(venv, "bin")
        except (subprocess.CalledProcessError, OSError) as error:
            output = getattr(error, "stderr", b"") or b""
            self.venv_error = f"no virtual environment with websockets and the client package: {error} {output.decode(errors='replace')[-300:]}"
        return self.venv

    def have(self, tool):
        if tool == "root":
            return None if os.geteuid() == 0 else "needs root (commands that change state are root's, or [server] allow_uids')"
        if shutil.which(tool) or tool in self.missing_tools and self.missing_tools[tool] is None:
            return None
        if tool in self.missing_tools:
            return self.missing_tools[tool]
        package = {"chromium": "chromium", "socat": "socat", "jq": "jq", "curl": "curl", "node": "nodejs",
                   "promtool": "prometheus"}.get(tool)
        why = f"needs {tool}, which is not installed"
        if package and os.geteuid() == 0 and shutil.which("apt-get"):
            for _ in range(20):
                result = subprocess.run(["apt-get", "install", "-y", "-q", package], capture_output=True,
                                        env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))
                if result.returncode == 0 or b"lock" not in result.stderr:
                    break
                time.sleep(15)   # another apt-get holds the lock
            if shutil.which(tool):
                why = None
            else:
                why += " (apt-get install failed)"
        self.missing_tools[tool] = why
        return why

    def workdir(self, name):
        work = tempfile.mkdtemp(prefix=name + ".", dir=self.scratch)
        os.rmdir(work)
        shutil.copytree(self.template, work, symlinks=True)
        return work

    def environ(self, runtime):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("TRANSITIOND") and k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        path = [self.shims] + ([self.venv] if self.venv else []) + [env.get("PATH", "/usr/bin:/bin")]
        env.update(PATH=":".join(path), XDG_RUNTIME_DIR=runtime, PYTHONDONTWRITEBYTECODE="1",
                   EXAMPLES_HELPERS=os.path.dirname(os.path.abspath(__file__)))
        return env


# MARK: Running


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(host, port):
    try:
        with socket.create_connection((host, port), timeout=0.2):
            return True
    except OSError:
        return False


class Result:
    def __init__(self, status, why="", output=""):
        self.status, self.why, self.output = status, why, output


def kill_group(process, sig=signal.SIGKILL):
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def run_process(argv, cwd, env, timeout, interrupt=None, while_cmd=None, terminal=False):
    """(exit status or -signal, output, a failure or None)."""
    master = None
    if terminal:
        master, slave = pty.openpty()
        import fcntl, struct, termios
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        out = err = slave
    else:
        log = tempfile.TemporaryFile()
        out, err = log, subprocess.STDOUT
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=out, stderr=err,
                               start_new_session=True)
    captured = bytearray()
    if terminal:
        os.close(slave)
    deadline = time.monotonic() + timeout
    problem = None
    stop_at = time.monotonic() + float(interrupt) if interrupt is not None else None
    helper = None
    if while_cmd is not None:
        time.sleep(0.5)
        helper_log = tempfile.TemporaryFile()
        helper = subprocess.Popen(["bash", "-c", while_cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                  stdout=helper_log, stderr=subprocess.STDOUT, start_new_session=True)

    def helper_output():
        helper_log.seek(0)
        return helper_log.read().decode(errors="replace")

    interrupted = False

    def pump(wait):
        if master is None:
            time.sleep(wait)
            return
        ready, _, _ = select.select([master], [], [], wait)
        if ready:
            try:
                captured.extend(os.read(master, 65536))
            except OSError:
                pass

    while True:
        if process.poll() is not None and (master is None or not select.select([master], [], [], 0)[0]):
            break
        if process.poll() is not None and master is not None:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            captured.extend(data)
            continue
        now = time.monotonic()
        if helper is not None and helper.poll() is not None and not interrupted:
            kill_group(helper)   # what it left behind (a process substitution)
            if helper.returncode != 0:
                problem = f"'{while_cmd}' exited {helper.returncode} while the example ran:\n{helper_output()}"
            stop_at = now
        if stop_at is not None and now >= stop_at and not interrupted:
            interrupted = True
            kill_group(process, signal.SIGINT)
            deadline = min(deadline, now + 5)
        if now >= deadline:
            kill_group(process)
            process.wait()
            if helper is not None:
                kill_group(helper)
            what = "did not end within 5 s of SIGINT" if interrupted else f"did not end within {timeout:g} s"
            problem = problem or what
            break
        pump(0.05)
    if helper is not None and helper.poll() is None:
        kill_group(helper)
        helper.wait()
        if problem is None:
            problem = f"'{while_cmd}' was still running when the example ended:\n" + helper_output()
    if helper is not None:
        kill_group(helper)   # what it left behind (a process substitution)
    kill_group(process)   # what it left behind
    if master is not None:
        os.close(master)
        output = captured.decode(errors="replace")
    else:
        log.seek(0)
        output = log.read().decode(errors="replace")
        log.close()
    status = process.returncode
    if problem is None and stop_at is not None and not interrupted and while_cmd is None:
        problem = f"ended (exit {status}) before it was interrupted at {interrupt} s"
    elif problem is None and (interrupt is not None or while_cmd is not None) and interrupted:
        if status not in (0, -signal.SIGINT, 130):
            problem = f"exited {status} after SIGINT"
        status = 0
    elif problem is None and while_cmd is not None and not interrupted:
        problem = f"ended (exit {status}) while '{while_cmd}' still needed it"
    return status, output, problem


class Daemon:
    def __init__(self, env, cwd, sock, args, websocket=None):
        self.log = tempfile.TemporaryFile()
        command = ["run"] if args[:1] == ["run"] else ["replay"]
        args = args[1:] if command == ["run"] else args
        argv = ["transitiond"] + command + ["--socket", sock] + (["--websocket", websocket] if websocket else []) + args
        self.argv = argv
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.process.poll() is None:
            listening = os.path.exists(sock)
            if websocket:
                host, _, port = websocket.rpartition(":")
                listening = listening and port_open(host, int(port))
            if listening:
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the daemon for it did not start: {' '.join(argv)}\n{self.output()}")

    def stop(self):
        if self.process.poll() is None:
            kill_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                kill_group(self.process)
                self.process.wait()

    def output(self):
        self.log.seek(0)
        return self.log.read().decode(errors="replace")


def command_lines(text):
    """The block's commands: a line ending in a backslash continues on the next."""
    commands, current, first = [], "", None
    for number, line in enumerate(text.split("\n"), 1):
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if first is None:
            first = number
        current += line + "\n"
        if not line.rstrip().endswith("\\"):
            commands.append((first, current))
            current, first = "", None
    return commands


def run_example(env_, block, text, files, line):
    o = block.options
    if "swift run stream-client-example" in text and env_.stream_client_example is None:
        return Result("skip", "no stream-client-example beside the binary (`swift build` builds it with transitiond)")
    for tool in (o.get("needs") or "").split():
        why = env_.have(tool)
        if why:
            return Result("skip", why)
    work = env_.workdir(os.path.basename(block.doc).replace(".md", "") + f"-{line}")
    runtime = tempfile.mkdtemp(prefix="run.", dir=env_.scratch)
    os.chmod(runtime, 0o700)
    lang = block.lang
    needs_python = lang == "python" or re.search(r"\b(pip|python3?)\b", text) is not None
    if needs_python and env_.python() is None:
        return Result("fail", env_.venv_error)
    env = env_.environ(runtime)
    for name in (o.get("unset") or "").split():
        env.pop(name, None)
    for name, content in files.items():
        with open(os.path.join(work, name), "w") as f:
            f.write(content)
    for pair in (o.get("given") or "").split():
        name, _, source = pair.partition("=")
        shutil.copy(os.path.join(work, source), os.path.join(work, name))
    timeout = float(o.get("timeout") or 30)
    expected = int(o.get("exit") or 0)

    daemon = None
    if block.kind == "daemon":
        args = shlex.split(block.arg) if block.arg else DEFAULT_REPLAY
        m = re.search(r"--socket[ =]\"?([^\s\"]+)", text)
        sock = os.path.join(runtime, "transitiond.sock")
        if m and "$" not in m.group(1):
            sock = m.group(1)
        env["TRANSITIOND_SOCKET"] = sock
        ws = re.search(r"ws://([\w.]+:\d+)", text)
        websocket = ws.group(1) if ws else None
        if "browser" in o and websocket is None:
            websocket = f"127.0.0.1:{free_port()}"
        if websocket:
            env["EXAMPLE_WEBSOCKET_HOST"] = websocket
        try:
            daemon = Daemon(env, work, sock, args, websocket)
        except RuntimeError as error:
            return Result("fail", str(error))

    if lang in ("sh", "bash", "shell", ""):
        argv = ["bash", "-e", "-c", text]
    elif lang == "python":
        if o.get("wrap") == "client":
            body = "".join("        " + l + "\n" for l in text.rstrip("\n").split("\n"))
            text = ("import asyncio\nimport transitiond_client\n\nasync def main():\n"
                    "    client = await transitiond_client.connect()\n    async with client:\n"
                    + body + "\nasyncio.run(main())\n")
        with open(os.path.join(work, "example.py"), "w") as f:
            f.write(text)
        argv = [os.path.join(env_.venv, "python3"), "example.py"]
    elif lang in ("js", "html"):
        if lang == "html":
            m = re.search(r'<script type="module">\n(.*?)</script>', text, re.S)
            if not m or "browser" not in o:
                return Result("fail", "an html block runs only as 'browser', with a <script type=\"module\">")
            text = m.group(1)
        shutil.copy(os.path.join(work, "clients", "js", "transitiond.js"), os.path.join(work, "transitiond.js"))
        with open(os.path.join(work, "example.mjs"), "w") as f:
            if "browser" in o:
                f.write("import './browser-shim.mjs';\n")
            f.write(text)
        with open(os.path.join(work, "browser-shim.mjs"), "w") as f:
            f.write(BROWSER_SHIM)
        node_major = int(subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"],
                                        capture_output=True, text=True).stdout.strip() or 0)
        argv = ["node"] + (["--experimental-websocket"] if node_major < 22 else []) + ["example.mjs"]
    elif lang == "toml":
        name = "example.toml"
        content = text
        if block.kind == "fragment" and "[[transition]]" not in text:
            content = text + BASE_TRANSITION
        with open(os.path.join(work, name), "w") as f:
            f.write(content)
        argv = ["transitiond", "check-config", name]
    elif lang == "json":
        return check_json(text)
    else:
        return Result("fail", f"no way to run a '{lang}' block: mark it skip, with why")
    try:
        status, output, problem = run_process(argv, work, env, timeout, o.get("interrupt"), o.get("while"),
                                              "terminal" in o)
    finally:
        if daemon:
            daemon.stop()
    if daemon and problem is None and daemon.process.returncode not in (0, -signal.SIGTERM):
        problem = f"the daemon it ran against exited {daemon.process.returncode}"
    if problem is None and status != expected:
        problem = f"exited {status}" + (f", not {expected}" if expected else "")
    if problem is None and o.get("expect") and o["expect"] not in output:
        problem = f"its output does not contain '{o['expect']}'"
    if problem is None and o.get("then"):
        check = subprocess.run(["bash", "-c", o["then"]], cwd=work, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=30)
        if check.returncode != 0:
            problem = f"'{o['then']}' exited {check.returncode}"
            output += (check.stdout + check.stderr).decode(errors="replace")
    if problem:
        extra = f"\n--- the daemon ({' '.join(daemon.argv)}):\n{daemon.output()}" if daemon else ""
        return Result("fail", problem, output + extra)
    shutil.rmtree(work, ignore_errors=True)
    return Result("ok")


def extract_scripts(blocks, kind, folder):
    """Each block of this kind as FOLDER/DOC-LINE.sh; prints their names."""
    os.makedirs(folder, exist_ok=True)
    for block in blocks:
        if block.kind != kind:
            continue
        skipped = block.options.get("skip line", {})
        body = []
        for number, line in enumerate(block.text.rstrip("\n").split("\n"), 1):
            body.append(f"# left out ({skipped[number]}): {line}" if number in skipped else line)
        name = f"{block.doc.replace('/', '_').removesuffix('.md')}-{block.line}.sh"
        with open(os.path.join(folder, name), "w") as f:
            f.write(f"#!/bin/bash\n# {block.doc}:{block.line}, extracted by Tests/examples/examples.py\nset -e\n"
                    + "\n".join(body) + "\n")
        os.chmod(os.path.join(folder, name), 0o755)
        print(name)
    return 0


def check_json(text):
    try:
        json.loads(text)
        return Result("ok")
    except ValueError:
        pass
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            return Result("fail", f"line {number} is not JSON: {error}")
        if not isinstance(value, dict) or "type" not in value:
            return Result("fail", f"line {number} is not an object with a type")
    return Result("ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--transitiond", default=os.environ.get("TRANSITIOND", ".build/debug/transitiond"))
    parser.add_argument("--list", action="store_true", help="list the blocks and their marks, run nothing")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    parser.add_argument("--extract", nargs=2, metavar=("KIND", "DIR"),
                        help="write the blocks marked KIND (systemd) as scripts into DIR, run nothing")
    parser.add_argument("filters", nargs="*", help="only examples whose FILE:LINE contains one of these")
    args = parser.parse_args()
    binary = args.transitiond if os.path.isabs(args.transitiond) else os.path.join(ROOT, args.transitiond)

    blocks = []
    counts = {"ok": 0, "fail": 0, "skip": 0}

    def report(status, where, why="", output="", seconds=None):
        counts[status] += 1
        label = {"ok": "ok  ", "fail": "FAIL", "skip": "skip"}[status]
        timing = f" ({seconds:.1f} s)" if seconds is not None and status == "ok" else ""
        print(f"{label} {where}{timing}{': ' + why if why else ''}", flush=True)
        lines = output.rstrip().split("\n")
        if len(lines) > 60:
            lines = lines[:20] + [f"… ({len(lines) - 50} lines left out) …"] + lines[-30:]
        if output.strip():
            print("    " + "\n    ".join(lines), flush=True)

    for doc in documents(ROOT):
        try:
            blocks += extract(ROOT, doc)
        except ValueError as error:
            report("fail", doc, f"bad mark: {error}")
    if args.list:
        for b in blocks:
            print(f"{b.where}: {b.mark}")
        return 0
    if args.extract:
        return extract_scripts(blocks, *args.extract)
    if not os.access(binary, os.X_OK):
        print(f"examples: no transitiond at {binary} (build it, or set TRANSITIOND)", file=sys.stderr)
        print("examples: 0 passed, 1 failed, 0 skipped")
        return 1
    scratch = tempfile.mkdtemp(prefix="transitiond-examples.")
    try:
        environment = Environment(ROOT, binary, scratch)
        files = {}
        for block in blocks:
            if args.filters and not any(f in f"{block.doc}:{block.line}" for f in args.filters):
                if block.kind == "file":
                    files.setdefault(block.doc, {})[block.arg] = block.text
                continue
            if block.mark is None:
                report("fail", block.where, "no <!-- example: … --> mark on the line before its fence "
                       "(run, daemon, fragment, file NAME, or skip: why)")
                continue
            if block.kind == "skip":
                report("skip", block.where, block.arg)
                continue
            if block.kind == "systemd":
                report("skip", block.where, "needs root and a booted systemd with transitiond installed "
                       "(for such a guest: examples.py --extract systemd DIR)")
                continue
            if block.kind == "file":
                files.setdefault(block.doc, {})[block.arg] = block.text
                if "check" not in block.options:
                    report("ok", f"{block.where} (the file {block.arg}, for the examples after it)")
                    continue
                check = Block(block.doc, block.line, "sh", block.options["check"] + "\n", "run")
                check.options = {k: v for k, v in block.options.items() if k != "check"}
                started = time.monotonic()
                result = run_example(environment, check, check.text, files[block.doc], block.line)
                report(result.status, f"{block.where} ({block.options['check']})", result.why, result.output,
                       time.monotonic() - started)
                continue
            if "each line" in block.options:
                units = [(block.line + n, cmd, n) for n, cmd in command_lines(block.text)]
            else:
                units = [(block.line, block.text, None)]
            for line, text, n in units:
                label = re.sub(r"\s+#.*$", "", text.strip().splitlines()[0]).strip()
                where = f"{block.doc}:{line} {block.lang}" + (f" ({label[:70]})" if n else "")
                skip = block.options.get("skip line", {}).get(n) if n else None
                if skip:
                    report("skip", where, skip)
                    continue
                started = time.monotonic()
                result = run_example(environment, block, text, files.get(block.doc, {}), line)
                report(result.status, where, result.why, result.output, time.monotonic() - started)
    finally:
        if args.keep:
            print(f"examples: scratch kept in {scratch}", file=sys.stderr)
        else:
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"examples: {counts['ok']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
