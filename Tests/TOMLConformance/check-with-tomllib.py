#!/usr/bin/env python3
"""Cross-check this TOML 1.0.0 conformance suite against Python's tomllib.

Usage:  python3 check-with-tomllib.py      (Python 3.11 or later, any directory)

tomllib is used only as an independent second opinion: the expected values in
valid/*.json and the lines in invalid/EXPECTED were written by hand from the
TOML 1.0.0 specification. See README.md for the formats.

For every valid/NAME.toml: parse it with tomllib (a leading UTF-8 BOM is
stripped first), convert the result to tagged JSON and compare it with
valid/NAME.json (values, types and key order; date/time values are compared
as Python objects after parsing the expected string, truncated to
microseconds, because tomllib keeps only six fractional digits). Also check
that NAME.json is formatted exactly as json.dump(indent=2,
ensure_ascii=False) plus a newline, that every fraction written in an
expected date/time occurs in the document, and that .toml and .json files
pair up.

For every invalid/NAME.toml: check that tomllib rejects it, that
invalid/EXPECTED lists it (and lists nothing else), and print a note when
tomllib reports a different line than EXPECTED.

Also check that the files written by make-binary-cases.py still have exactly
the bytes that script defines (so a line-ending conversion is caught).

Prints `tomllib cross-check: N valid ok, M invalid ok, K problems` and
exits with status 1 when K > 0.
"""

import datetime
import json
import math
import os
import re
import runpy
import sys

try:
    import tomllib
except ImportError:  # pragma: no cover
    sys.exit("check-with-tomllib.py needs Python 3.11 or later (tomllib)")

HERE = os.path.dirname(os.path.abspath(__file__))
VALID_DIR = os.path.join(HERE, "valid")
INVALID_DIR = os.path.join(HERE, "invalid")
EXPECTED_FILE = os.path.join(INVALID_DIR, "EXPECTED")

BOM = b"\xef\xbb\xbf"
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
EXPECTED_RE = re.compile(r"^([a-z0-9]+(?:-[a-z0-9]+)*\.toml) ([1-9][0-9]*)  # (\S.*)$")

# Invalid documents that tomllib (wrongly) accepts. Each one is invalid per
# the TOML 1.0.0 specification; tomllib is lenient there. They are not
# counted as problems, but a note is printed for each.
KNOWN_TOMLLIB_DIFFERENCES = {
    # Integer section: "Arbitrary 64-bit signed integers (from -2^63 to
    # 2^63-1) should be accepted and handled losslessly. If an integer cannot
    # be represented losslessly, an error must be thrown."
    # tomllib returns Python's unbounded int and never range-checks.
    "integer-max-plus-one",
    "integer-min-minus-one",
    "integer-hex-too-large",
    "integer-octal-too-large",
    "integer-binary-too-large",
}

problems = []
notes = []


def problem(msg):
    problems.append(msg)
    print("PROBLEM: " + msg)


def note(msg):
    notes.append(msg)
    print("note: " + msg)


# ---------------------------------------------------------------- tagging

def tag(v):
    """Convert a tomllib value to tagged JSON (date/time values keep the Python object)."""
    if isinstance(v, dict):
        return {k: tag(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tag(x) for x in v]
    if isinstance(v, bool):
        return {"type": "bool", "value": "true" if v else "false"}
    if isinstance(v, int):
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        if math.isnan(v):
            text = "nan"
        elif math.isinf(v):
            text = "inf" if v > 0 else "-inf"
        else:
            text = repr(v)
        return {"type": "float", "value": text}
    if isinstance(v, str):
        return {"type": "string", "value": v}
    if isinstance(v, datetime.datetime):
        return {"type": "datetime" if v.tzinfo is not None else "datetime-local", "value": v}
    if isinstance(v, datetime.date):
        return {"type": "date-local", "value": v}
    if isinstance(v, datetime.time):
        return {"type": "time-local", "value": v}
    raise TypeError(f"unexpected value from tomllib: {v!r}")


DT_RE = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([+-])(\d{2}):(\d{2}))?$")
TIME_RE = re.compile(r"^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?$")
DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")


def micro(frac):
    return int((frac or "").ljust(6, "0")[:6]) if frac else 0


def parse_expected_datetime(kind, text):
    """Parse an expected date/time string; return (python value, fraction digits or None)."""
    if kind in ("datetime", "datetime-local"):
        m = DT_RE.match(text)
        if not m or (kind == "datetime") != (m.group(8) is not None):
            raise ValueError(f"malformed {kind} value {text!r}")
        y, mo, d, h, mi, sec = (int(m.group(k)) for k in range(1, 7))
        tz = None
        if kind == "datetime":
            off = datetime.timedelta(hours=int(m.group(9)), minutes=int(m.group(10)))
            tz = datetime.timezone(-off if m.group(8) == "-" else off)
        return datetime.datetime(y, mo, d, h, mi, sec, micro(m.group(7)), tzinfo=tz), m.group(7)
    if kind == "date-local":
        m = DATE_RE.match(text)
        if not m:
            raise ValueError(f"malformed date-local value {text!r}")
        return datetime.date(int(m.group(1)), int(m.group(2)), int(m.group(3))), None
    if kind == "time-local":
        m = TIME_RE.match(text)
        if not m:
            raise ValueError(f"malformed time-local value {text!r}")
        return datetime.time(int(m.group(1)), int(m.group(2)), int(m.group(3)), micro(m.group(4))), m.group(4)
    raise ValueError(kind)


SCALAR_TYPES = {"string", "integer", "float", "bool", "datetime", "datetime-local", "date-local", "time-local"}
DT_TYPES = {"datetime", "datetime-local", "date-local", "time-local"}


def is_scalar(x):
    return isinstance(x, dict) and set(x) == {"type", "value"} and x.get("type") in SCALAR_TYPES \
        and isinstance(x.get("value"), str)


def compare(got, want, path, doc_text, out):
    """Compare tagged tomllib output with expected JSON; append differences to out."""
    where = path or "(root)"
    if isinstance(want, dict) and not is_scalar(want):
        if not isinstance(got, dict) or is_scalar(got):
            out.append(f"{where}: expected a table, tomllib gave {describe(got)}")
            return
        if set(got) != set(want):
            missing = [k for k in want if k not in got]
            extra = [k for k in got if k not in want]
            out.append(f"{where}: keys differ (only expected: {missing}, only tomllib: {extra})")
        elif list(got) != list(want):
            out.append(f"{where}: key order differs (expected {list(want)}, tomllib {list(got)})")
        for k in want:
            if k in got:
                compare(got[k], want[k], f"{path}.{json.dumps(k, ensure_ascii=False)}" if path
                        else json.dumps(k, ensure_ascii=False), doc_text, out)
        return
    if isinstance(want, list):
        if not isinstance(got, list):
            out.append(f"{where}: expected an array, tomllib gave {describe(got)}")
            return
        if len(got) != len(want):
            out.append(f"{where}: expected {len(want)} elements, tomllib gave {len(got)}")
        for n, (g, w) in enumerate(zip(got, want)):
            compare(g, w, f"{path}[{n}]", doc_text, out)
        return
    if not is_scalar(want):
        out.append(f"{where}: malformed expected value {want!r}")
        return
    if not is_scalar_like(got):
        out.append(f"{where}: expected {want['type']}, tomllib gave {describe(got)}")
        return
    if got["type"] != want["type"]:
        out.append(f"{where}: expected type {want['type']}, tomllib gave {got['type']} ({got['value']!r})")
        return
    if want["type"] in DT_TYPES:
        try:
            value, frac = parse_expected_datetime(want["type"], want["value"])
        except ValueError as e:
            out.append(f"{where}: {e}")
            return
        if frac is not None and "." + frac not in doc_text:
            out.append(f"{where}: fraction .{frac} of {want['value']!r} does not occur in the document")
        g = got["value"]
        same = g == value
        if same and want["type"] == "datetime":
            same = g.utcoffset() == value.utcoffset()
        if not same:
            out.append(f"{where}: expected {want['type']} {want['value']!r}, tomllib gave {g.isoformat()!r}")
        return
    if got["value"] != want["value"]:
        out.append(f"{where}: expected {want['type']} {want['value']!r}, tomllib gave {got['value']!r}")


def is_scalar_like(x):
    return isinstance(x, dict) and set(x) == {"type", "value"} and x.get("type") in SCALAR_TYPES


def describe(x):
    if isinstance(x, list):
        return "an array"
    if is_scalar_like(x):
        return f"{x['type']} {x['value']!r}"
    return "a table"


# ---------------------------------------------------------------- helpers

def decode(data):
    if data.startswith(BOM):
        data = data[len(BOM):]
    return data.decode("utf-8")


def names_in(directory, ext):
    return sorted(f[: -len(ext)] for f in os.listdir(directory) if f.endswith(ext))


def tomllib_line(err, text):
    m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
    if m:
        return int(m.group(1))
    if "(at end of document)" in str(err):
        return text.count("\n") + 1
    return None


# ---------------------------------------------------------------- checks

def check_valid():
    ok = 0
    tomls = names_in(VALID_DIR, ".toml")
    jsons = names_in(VALID_DIR, ".json")
    for n in sorted(set(jsons) - set(tomls)):
        problem(f"valid/{n}.json has no valid/{n}.toml")
    for n in sorted(set(os.listdir(VALID_DIR)) - {t + ".toml" for t in tomls} - {j + ".json" for j in jsons}):
        problem(f"valid/{n}: unexpected file")
    for name in tomls:
        label = f"valid/{name}.toml"
        if not NAME_RE.match(name):
            problem(f"{label}: name is not lower-case words joined by '-'")
        json_path = os.path.join(VALID_DIR, name + ".json")
        if not os.path.exists(json_path):
            problem(f"{label}: no {name}.json")
            continue
        with open(os.path.join(VALID_DIR, name + ".toml"), "rb") as fh:
            data = fh.read()
        with open(json_path, "rb") as fh:
            json_bytes = fh.read()
        try:
            want = json.loads(json_bytes.decode("utf-8"))
        except ValueError as e:
            problem(f"valid/{name}.json: not JSON: {e}")
            continue
        if json_bytes.decode("utf-8") != json.dumps(want, indent=2, ensure_ascii=False) + "\n":
            problem(f"valid/{name}.json: not formatted as json.dump(indent=2, ensure_ascii=False) + newline")
        try:
            text = decode(data)
            got = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            problem(f"{label}: tomllib rejects it: {e}")
            continue
        diffs = []
        compare(tag(got), want, "", text, diffs)
        if diffs:
            for d in diffs:
                problem(f"{label}: {d}")
        else:
            ok += 1
    return ok


def read_expected():
    entries = {}
    if not os.path.exists(EXPECTED_FILE):
        problem("invalid/EXPECTED is missing")
        return entries
    with open(EXPECTED_FILE, "rb") as fh:
        raw = fh.read()
    if b"\r" in raw:
        problem("invalid/EXPECTED contains CR bytes")
    for n, line in enumerate(raw.decode("utf-8").split("\n"), 1):
        if line == "":
            continue
        m = EXPECTED_RE.match(line)
        if not m:
            problem(f"invalid/EXPECTED line {n}: not `NAME.toml LINE  # what is wrong`: {line!r}")
            continue
        fname = m.group(1)
        if fname in entries:
            problem(f"invalid/EXPECTED line {n}: {fname} listed twice")
        entries[fname] = int(m.group(2))
    return entries


def check_invalid():
    ok = 0
    expected = read_expected()
    tomls = names_in(INVALID_DIR, ".toml")
    for fname in sorted(set(expected) - {t + ".toml" for t in tomls}):
        problem(f"invalid/EXPECTED names {fname}, which does not exist")
    for n in sorted(set(os.listdir(INVALID_DIR)) - {t + ".toml" for t in tomls} - {"EXPECTED"}):
        problem(f"invalid/{n}: unexpected file")
    for name in sorted(KNOWN_TOMLLIB_DIFFERENCES - set(tomls)):
        problem(f"KNOWN_TOMLLIB_DIFFERENCES names {name}, which is not an invalid document")
    line_one = 0
    for name in tomls:
        label = f"invalid/{name}.toml"
        if not NAME_RE.match(name):
            problem(f"{label}: name is not lower-case words joined by '-'")
        with open(os.path.join(INVALID_DIR, name + ".toml"), "rb") as fh:
            data = fh.read()
        want_line = expected.get(name + ".toml")
        if want_line is None:
            problem(f"{label}: not listed in invalid/EXPECTED")
        else:
            nlines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
            if want_line > max(nlines, 1):
                problem(f"{label}: EXPECTED line {want_line} but the file has {nlines} lines")
            if want_line == 1:
                line_one += 1
        try:
            text = decode(data)
        except UnicodeDecodeError as e:
            got_line = data[: e.start + (3 if data.startswith(BOM) else 0)].count(b"\n") + 1
            if want_line is not None and got_line != want_line:
                note(f"{label}: invalid UTF-8 at line {got_line}, EXPECTED says {want_line}")
            ok += 1
            continue
        try:
            tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            if name in KNOWN_TOMLLIB_DIFFERENCES:
                note(f"{label}: listed in KNOWN_TOMLLIB_DIFFERENCES but tomllib rejects it now ({e})")
            got_line = tomllib_line(e, text)
            if want_line is not None and got_line is not None and got_line != want_line:
                note(f"{label}: tomllib reports line {got_line}, EXPECTED says {want_line} ({e})")
            ok += 1
            continue
        if name in KNOWN_TOMLLIB_DIFFERENCES:
            note(f"{label}: tomllib accepts it (known tomllib difference, see KNOWN_TOMLLIB_DIFFERENCES)")
        else:
            problem(f"{label}: tomllib accepts it")
    if line_one:
        print(f"({line_one} invalid documents have their error on line 1)")
    return ok


def check_binary_files():
    """The files make-binary-cases.py writes must still hold exactly its bytes."""
    script = os.path.join(HERE, "make-binary-cases.py")
    if not os.path.exists(script):
        problem("make-binary-cases.py is missing")
        return
    mod = runpy.run_path(script, run_name="make_binary_cases")
    for rel, data in mod["files"]():
        path = os.path.join(HERE, rel)
        if not os.path.exists(path):
            problem(f"{rel}: missing (run make-binary-cases.py)")
            continue
        with open(path, "rb") as fh:
            if fh.read() != data:
                problem(f"{rel}: bytes differ from make-binary-cases.py (line-ending conversion?)")


def main():
    check_binary_files()
    valid_ok = check_valid()
    invalid_ok = check_invalid()
    known = len(KNOWN_TOMLLIB_DIFFERENCES)
    print(f"({known} invalid documents are known tomllib differences, see KNOWN_TOMLLIB_DIFFERENCES; "
          f"{len(notes)} notes)")
    print(f"tomllib cross-check: {valid_ok} valid ok, {invalid_ok} invalid ok, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
