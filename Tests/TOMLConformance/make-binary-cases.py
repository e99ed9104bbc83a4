#!/usr/bin/env python3
"""Write the documents of the TOML conformance suite whose exact bytes matter.

These are the documents that contain CRLF line endings, a byte-order mark,
raw control characters, or bytes that are not valid UTF-8. They are kept
here as Python bytes literals so that an editor, a copy or a version-control
line-ending conversion cannot silently change them. Running this script
(re)writes exactly these files:

  valid/NAME.toml and valid/NAME.json    for every entry of VALID
  invalid/NAME.toml                      for every entry of INVALID

The EXPECTED lines of the INVALID entries are also listed in invalid/EXPECTED
(they are the `line` and `why` fields below). check-with-tomllib.py imports
this file and reports a problem if a file on disk differs from the bytes here.

Usage:  python3 make-binary-cases.py
"""

import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def s(v):
    return {"type": "string", "value": v}


def i(v):
    return {"type": "integer", "value": str(v)}


# (name, document bytes, expected tagged JSON value)
VALID = [
    (
        "newline-crlf",
        b"# CRLF line endings everywhere\r\n"
        b"a = 1\r\n"
        b"[t]\r\n"
        b'b = "x" # a comment\r\n'
        b"c = [\r\n"
        b"  1,\r\n"
        b"  2, # inside an array\r\n"
        b"]\r\n"
        b"\r\n"
        b"[[aot]]\r\n"
        b"d = { e = 1 }\r\n",
        {"a": i(1), "t": {"b": s("x"), "c": [i(1), i(2)]}, "aot": [{"d": {"e": i(1)}}]},
    ),
    (
        "newline-mixed-lf-crlf",
        b"a = 1\n"
        b"b = 2\r\n"
        b"\r\n"
        b"c = 3\n"
        b"\n\r\n"
        b"d = 4\r\n",
        {"a": i(1), "b": i(2), "c": i(3), "d": i(4)},
    ),
    (
        "newline-crlf-in-strings",
        # Only CRLF cases whose value does not depend on newline
        # normalisation: a trimmed first newline and line-ending backslashes.
        b'a = """\r\nfirst newline trimmed"""\r\n'
        b'b = """line-ending \\\r\n    backslash"""\r\n'
        b"c = '''\r\nliteral first newline trimmed'''\r\n"
        b'd = """\\\r\n\r\n   \r\n  blank CRLF lines trimmed"""\r\n',
        {
            "a": s("first newline trimmed"),
            "b": s("line-ending backslash"),
            "c": s("literal first newline trimmed"),
            "d": s("blank CRLF lines trimmed"),
        },
    ),
    (
        "bom-start",
        b"\xef\xbb\xbfa = 1\n# a UTF-8 byte-order mark precedes the first key\n",
        {"a": i(1)},
    ),
    (
        "bom-only",
        b"\xef\xbb\xbf",
        {},
    ),
]

# (name, document bytes, 1-based line of the error, what is wrong)
INVALID = [
    # --- control characters in comments (only tab is allowed)
    ("comment-control-nul", b"a = 1\n# a NUL \x00 here\n", 2,
     "U+0000 is not permitted in a comment"),
    ("comment-control-soh", b"a = 1\nb = 2 # \x01\n", 2,
     "U+0001 is not permitted in a comment"),
    ("comment-control-vertical-tab", b"a = 1\n\n# vertical tab \x0b\n", 3,
     "U+000B is not permitted in a comment"),
    ("comment-control-unit-separator", b"# ok\n# unit separator \x1f\n", 2,
     "U+001F is not permitted in a comment"),
    ("comment-control-del", b"a = 1\n# delete \x7f\n", 2,
     "U+007F is not permitted in a comment (spec text; see README)"),
    ("comment-lone-cr", b"a = 1\n# a lone CR\r in a comment\n", 2,
     "a CR not followed by LF is a control character, not a newline"),
    # --- newlines and whitespace
    ("newline-lone-cr", b"a = 1\nb = 2\rc = 3\n", 2,
     "a lone CR is not a newline"),
    ("newline-cr-before-crlf", b"x = 0\na = 1\r\r\nb = 2\n", 2,
     "CR CR LF: the first CR is a lone CR"),
    ("ws-vertical-tab", b"a = 1\nb =\x0b2\n", 2,
     "U+000B is not whitespace in TOML"),
    ("ws-form-feed", b"a = 1\n\x0cb = 2\n", 2,
     "U+000C is not whitespace in TOML"),
    ("bom-twice", b"\xef\xbb\xbf\xef\xbb\xbfa = 1\n", 1,
     "only one byte-order mark is tolerated; the second U+FEFF is content"),
    # --- control characters in basic strings
    ("string-basic-control-nul", b'a = 1\nb = "x\x00y"\n', 2,
     "U+0000 must be escaped in a basic string"),
    ("string-basic-control-backspace", b'a = 1\nb = "x\x08y"\n', 2,
     "U+0008 must be escaped in a basic string"),
    ("string-basic-control-unit-separator", b'a = 1\nb = "x\x1fy"\n', 2,
     "U+001F must be escaped in a basic string"),
    ("string-basic-control-del", b'a = 1\nb = "x\x7fy"\n', 2,
     "U+007F must be escaped in a basic string"),
    ("string-basic-lone-cr", b'a = 1\nb = "x\ry"\n', 2,
     "U+000D must be escaped in a basic string"),
    # --- control characters in multi-line basic strings
    ("string-ml-basic-control-nul", b'a = 1\nb = """\nx\x00y"""\n', 3,
     "U+0000 must be escaped in a multi-line basic string"),
    ("string-ml-basic-control-vertical-tab", b'a = 1\nb = """\nx\x0by"""\n', 3,
     "U+000B must be escaped in a multi-line basic string"),
    ("string-ml-basic-control-del", b'a = 1\nb = """\nx\x7fy"""\n', 3,
     "U+007F must be escaped in a multi-line basic string"),
    ("string-ml-basic-lone-cr", b'a = 1\nb = """x\ry"""\n', 2,
     "a CR not followed by LF is not a newline and must be escaped"),
    ("string-ml-basic-backslash-lone-cr", b'a = 1\nb = """x \\\ry"""\n', 2,
     "a line-ending backslash must be followed by LF or CRLF, not a lone CR"),
    # --- control characters in literal strings (only tab is allowed)
    ("string-literal-control-nul", b"a = 1\nb = 'x\x00y'\n", 2,
     "U+0000 is not permitted in a literal string"),
    ("string-literal-control-escape", b"a = 1\nb = 'x\x1by'\n", 2,
     "U+001B is not permitted in a literal string"),
    ("string-literal-control-del", b"a = 1\nb = 'x\x7fy'\n", 2,
     "U+007F is not permitted in a literal string"),
    ("string-literal-lone-cr", b"a = 1\nb = 'x\ry'\n", 2,
     "U+000D is not permitted in a literal string"),
    # --- control characters in multi-line literal strings
    ("string-ml-literal-control-nul", b"a = 1\nb = '''\nx\x00y'''\n", 3,
     "U+0000 is not permitted in a multi-line literal string"),
    ("string-ml-literal-control-form-feed", b"a = 1\nb = '''\nx\x0cy'''\n", 3,
     "U+000C is not permitted in a multi-line literal string"),
    ("string-ml-literal-control-del", b"a = 1\nb = '''\nx\x7fy'''\n", 3,
     "U+007F is not permitted in a multi-line literal string"),
    ("string-ml-literal-lone-cr", b"a = 1\nb = '''x\ry'''\n", 2,
     "a CR not followed by LF is not permitted in a multi-line literal string"),
    # --- not UTF-8
    ("utf8-lone-continuation-byte", b"a = 1\n# \x80\n", 2,
     "0x80 cannot start a UTF-8 sequence"),
    ("utf8-truncated-sequence", b'a = 1\nb = "\xe6\x97"\n', 2,
     "a three-byte UTF-8 sequence cut short"),
    ("utf8-overlong-encoding", b'a = 1\nb = "\xc0\xaf"\n', 2,
     "0xC0 0xAF is an overlong encoding of '/'"),
    ("utf8-encoded-surrogate", b'a = 1\nb = "\xed\xa0\x80"\n', 2,
     "0xED 0xA0 0x80 encodes the surrogate U+D800"),
    ("utf8-above-max-code-point", b"a = 1\n# \xf4\x90\x80\x80\n", 2,
     "0xF4 0x90 0x80 0x80 would be U+110000, beyond Unicode"),
    ("utf8-byte-ff-in-key", b"a = 1\n\xff = 2\n", 2,
     "0xFF never occurs in UTF-8"),
    ("utf8-latin1-text", b'a = 1\nb = "caf\xe9"\n', 2,
     "Latin-1 encoded e-acute (0xE9 followed by a quote) is not UTF-8"),
    ("utf8-bad-continuation-in-ml-literal", b"a = 1\nb = '''\nx\xc3(\n'''\n", 3,
     "0xC3 must be followed by a continuation byte, not '('"),
    ("utf8-truncated-at-eof", b"a = 1\n# ends with a truncated sequence \xc3", 2,
     "the file ends in the middle of a UTF-8 sequence"),
]


def files():
    """Yield (relative path, bytes) for every file this script writes."""
    for name, data, expected in VALID:
        yield os.path.join("valid", name + ".toml"), data
        text = json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
        yield os.path.join("valid", name + ".json"), text.encode("utf-8")
    for name, data, _line, _why in INVALID:
        yield os.path.join("invalid", name + ".toml"), data


def main():
    for rel, data in files():
        path = os.path.join(HERE, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    print(f"wrote {len(VALID)} valid and {len(INVALID)} invalid documents")


if __name__ == "__main__":
    main()
