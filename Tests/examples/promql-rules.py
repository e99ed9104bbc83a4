#!/usr/bin/env python3
"""Turns a file of PromQL queries into a Prometheus rules file, so that
`promtool check rules` parses every query.

    python3 promql-rules.py QUERIES.promql > rules.yml

Queries are separated by blank lines; lines starting with # are comments.
Each becomes a recording rule `example:query_N` with the query as its
expression (a YAML block scalar, so nothing in it needs escaping).
"""

import sys

queries, current = [], []
for line in open(sys.argv[1], encoding="utf-8").read().split("\n"):
    if line.strip().startswith("#"):
        continue
    if not line.strip():
        if current:
            queries.append(current)
        current = []
        continue
    current.append(line)
if current:
    queries.append(current)
if not queries:
    sys.exit("promql-rules: no queries")
print("groups:\n  - name: examples\n    rules:")
for n, query in enumerate(queries, 1):
    print(f"      - record: example:query_{n}\n        expr: |")
    for line in query:
        print("          " + line)
