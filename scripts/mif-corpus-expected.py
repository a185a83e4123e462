#!/usr/bin/env python3
"""Runs a MIF-INTEROP-CASES/1 case file through `mill mif adapter` alone and checks each
case's own expectation (expectedStatus, expectedCode) and the shape of each result.

Used by scripts/mif-corpus when no reference adapter is at hand (see docs/MIF.md):

    scripts/mif-corpus-expected.py --root DIR --cases FILE --mill PATH [--verbose]

DIR is a directory laid out like the MIF repository (the case file's `$json` sources are
read relative to it); nothing of it is kept here. Exit status 0 when every case meets its
expectation, 1 otherwise.
"""

import argparse
import copy
import json
import subprocess
import sys
from pathlib import Path


def unescape(token):
    return token.replace("~1", "/").replace("~0", "~")


def tokens(pointer):
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON Pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def step(node, token):
    return node[int(token)] if isinstance(node, list) else node[token]


def follow(node, pointer):
    for token in tokens(pointer):
        node = step(node, token)
    return node


def patched(document, operations, root):
    document = copy.deepcopy(document)
    for operation in operations:
        path = tokens(operation["path"])
        parent = follow(document, "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in path[:-1]))
        leaf = path[-1]
        kind = operation["op"]
        if kind == "remove":
            del parent[int(leaf) if isinstance(parent, list) else leaf]
            continue
        value = expanded(operation["value"], root)
        if kind == "replace":
            if isinstance(parent, list):
                parent[int(leaf)] = value
            else:
                if leaf not in parent:
                    raise KeyError(operation["path"])
                parent[leaf] = value
        elif kind == "add":
            if isinstance(parent, list):
                parent.append(value) if leaf == "-" else parent.insert(int(leaf), value)
            else:
                parent[leaf] = value
        else:
            raise ValueError(f"patch operation {kind!r}")
    return document


def expanded(value, root):
    if isinstance(value, list):
        return [expanded(v, root) for v in value]
    if not isinstance(value, dict):
        return value
    if "$json" in value:
        loaded = json.loads((root / value["$json"]).read_text(encoding="utf-8"))
        loaded = follow(loaded, value.get("$pointer", ""))
        return patched(loaded, value.get("$patch", []), root)
    return {k: expanded(v, root) for k, v in value.items()}


# The members each operation's result holds (MIF-INTEROP/1).
SNAPSHOT = {"boundary", "eventSeq", "current", "repetitionHistory", "claims", "claimRights",
            "decisionState", "decisionDigest"}
RESULT = {
    "capabilities": {"capabilities"},
    "canonicalize": {"value"},
    "execute": {"trace", "final"},
    "replay": SNAPSHOT - {"boundary", "eventSeq"} | {"trace", "resumptionState", "resumptionDigest"},
    "project-logical-turns": {"document"},
    "project-legal-actions": {"document"},
}


def shape(case, result):
    operation = case["operation"]
    if operation == "transform":
        wanted = {"document"}
        if case["payload"].get("kind") == "mstate":
            wanted |= {"decisionState", "decisionDigest", "resumptionState", "resumptionDigest"}
    else:
        wanted = RESULT.get(operation, set())
    if set(result) != wanted:
        return f"result members {sorted(result)}, not {sorted(wanted)}"
    for snapshot in result.get("trace", []):
        if set(snapshot) != SNAPSHOT:
            return f"trace snapshot members {sorted(snapshot)}"
    if operation == "execute" and result["final"] != result["trace"][-1]:
        return "final is not the last snapshot"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--mill", required=True)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    cases = json.loads(args.cases.read_text(encoding="utf-8"))["cases"]
    requests = []
    for case in cases:
        requests.append({
            "protocol": "MIF-INTEROP/1",
            "kind": "request",
            "requestId": case["id"],
            "operation": case["operation"],
            "payload": expanded(case["payload"], args.root),
        })
    wire = "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in requests)
    done = subprocess.run([args.mill, "mif", "adapter"], input=wire.encode("utf-8"),
                          stdout=subprocess.PIPE, check=True)
    lines = done.stdout.decode("utf-8").splitlines()
    if len(lines) != len(cases):
        print(f"{len(lines)} responses for {len(cases)} requests")
        return 1
    passed = 0
    for case, line in zip(cases, lines):
        response = json.loads(line)
        problem = None
        code = None
        if response.get("requestId") != case["id"] or response.get("operation") != case["operation"]:
            problem = "requestId or operation not echoed"
        elif response["status"] == "error":
            code = response["diagnostics"]["errors"][0]["code"]
        if problem is None and response["status"] != case["expectedStatus"]:
            problem = f"expected {case['expectedStatus']}, got {response['status']}"
            if code:
                problem += f" {code}: {response['diagnostics']['errors'][0].get('message', '')}"
        elif problem is None and "expectedCode" in case and code != case["expectedCode"]:
            problem = f"expected code {case['expectedCode']}, got {code}"
        elif problem is None and response["status"] == "ok":
            problem = shape(case, response["result"])
        if problem:
            print(f"FAIL {case['id']}: {problem}")
        else:
            passed += 1
            if args.verbose:
                print(f"pass {case['id']}")
    print(f"{passed}/{len(cases)} cases meet their expectation")
    return 0 if passed == len(cases) else 1


if __name__ == "__main__":
    sys.exit(main())
