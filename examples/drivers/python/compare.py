#!/usr/bin/env python3
"""Side-by-side comparison of two drivers of the driver protocol.

This file owns the comparison harness: it starts the model's driver
(`memtx-check driver`) and an implementation's driver (by default
driver.py beside it), sends both the same requests, and reports, per
trace, the first step whose answers differ and the field that differs
(`records[2].state: model quarantined, python committed`). The traces
are (a) every trace file in traces/*.json and (b) random walks over
every model in models/ and models/*/, generated here step by step from
each model's templates, tools and tiers, choosing among the steps the
store's current state (as the model reports it) makes interesting, with
a share of steps the protocol should refuse. Every field both answers
hold is compared; an error answer is compared on being an error, not on
its words; an abort's or revoke's repairs and the rollback log, whose
order the card leaves open, are compared as multisets. A walk that departs is written as a trace file (replayable by
`memtx-check replay`) when --save DIR is given.

Exit 0: every trace agrees. 1: some trace departs. 2: a driver broke the
protocol (a bad_request answer, not JSON, died) or bad usage.

    python3 examples/drivers/python/compare.py                 # everything
    python3 examples/drivers/python/compare.py --quick         # CI size
    python3 examples/drivers/python/compare.py --walks 500 --steps 40 --seed 7
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))


class Broken(Exception):
    """A driver broke the protocol."""


class Driver:
    """One driver process, spoken to one request at a time."""

    def __init__(self, name: str, argv: list[str]):
        self.name = name
        self.argv = argv
        # Standard error goes to a file, so a chatty driver never blocks.
        self.stderr = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                cwd=ROOT,
            )
        except OSError as e:
            raise Broken(f"{name}: cannot start {shlex.join(argv)}: {e}") from None

    def ask(self, request: dict) -> dict:
        line = json.dumps(request, separators=(",", ":")) + "\n"
        try:
            self.proc.stdin.write(line.encode())
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        except BrokenPipeError:
            answer = b""
        if not answer:
            self.proc.wait()
            self.stderr.seek(0)
            err = self.stderr.read().decode(errors="replace").strip()
            raise Broken(f"{self.name} died ({err[-500:] or 'no message'})")
        try:
            value = json.loads(answer)
        except json.JSONDecodeError:
            raise Broken(f"{self.name} answered a line that is not JSON: {answer[:200]!r}") from None
        if not isinstance(value, dict):
            raise Broken(f"{self.name} answered {answer[:200]!r}, not an object")
        if "bad_request" in value:
            raise Broken(f"{self.name} refused the request as bad: {value['bad_request']}")
        return value

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        if self.proc.returncode not in (0, None):
            raise Broken(f"{self.name} exited {self.proc.returncode} at the end of its input")


# ---------------------------------------------------------------- comparing


def _show(v) -> str:
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"))


def first_difference(model, impl, path=""):
    """The first field where `impl` departs from `model`, as
    (path, model value, impl value), or None. A key only the model has
    is one the implementation does not model (the contract lets it leave
    optional fields out; REQUIRED lists those it may not); a key only
    the implementation has is a difference."""
    if isinstance(model, dict) and isinstance(impl, dict):
        for key in model:
            if key in impl:
                d = first_difference(model[key], impl[key], f"{path}.{key}" if path else key)
                if d:
                    return d
            elif (path_kind(path), key) in REQUIRED:
                return (f"{path}.{key}" if path else key, model[key], "(missing)")
        for key in impl:
            if key not in model:
                return (f"{path}.{key}" if path else key, "(missing)", impl[key])
        return None
    if isinstance(model, list) and isinstance(impl, list):
        for i, (a, b) in enumerate(zip(model, impl)):
            d = first_difference(a, b, f"{path}[{i}]")
            if d:
                return d
        if len(model) != len(impl):
            return (f"{path}.length", len(model), len(impl))
        return None
    if type(model) is not type(impl) and not (
        isinstance(model, (int, float)) and isinstance(impl, (int, float))
        and not isinstance(model, bool) and not isinstance(impl, bool)
    ):
        return (path, model, impl)
    return None if model == impl else (path, model, impl)


def path_kind(path: str) -> str:
    """`records[3]` -> `records[]`, for the REQUIRED table."""
    out, skip = [], False
    for ch in path:
        if ch == "[":
            skip = True
            out.append("[]")
        elif ch == "]":
            skip = False
        elif not skip:
            out.append(ch)
    return "".join(out)


# The fields docs/driver-protocol.md makes required: an implementation
# that leaves one out departs.
REQUIRED = {
    ("", "records"),
    ("", "rollback_log"),
    ("records[]", "id"),
    ("records[]", "kind"),
    ("records[]", "state"),
    ("records[]", "scope"),
    ("records[]", "derived_from"),
    ("records[]", "reason"),
    ("rollback_log[]", "record"),
    ("rollback_log[]", "repair"),
    ("outcome.records[]", "id"),
    ("outcome.records[]", "result"),
    ("outcome.records[]", "reason"),
}


# The lists whose order the card leaves open (docs/driver-protocol.md):
# an abort's or a revoke's `repairs`, and the `rollback_log` (the entries
# one step adds come in that same open order). Both sides are put in one
# canonical order, by record id then by the entry's text, before they are
# compared, so they are compared as multisets; answers are compared after
# every step, so the log's steps keep their order.
UNORDERED = (("outcome", "repairs"), ("", "rollback_log"))


def canonical(answer: dict) -> dict:
    """`answer` with the UNORDERED lists in canonical order."""
    def key(entry):
        n = entry.get("record", entry.get("id")) if isinstance(entry, dict) else None
        return (n if isinstance(n, int) and not isinstance(n, bool) else float("inf"),
                json.dumps(entry, sort_keys=True, separators=(",", ":")))

    out = dict(answer)
    for outer, name in UNORDERED:
        holder = out if not outer else out.get(outer)
        if isinstance(holder, dict) and isinstance(holder.get(name), list):
            if outer:
                holder = out[outer] = dict(holder)
            holder[name] = sorted(holder[name], key=key)
    return out


def compare_answers(model: dict, impl: dict):
    """(path, model value, impl value) of the first difference, or None.
    Refused or not is compared first; an error's text is not compared;
    the UNORDERED lists are compared as multisets."""
    if ("error" in model) != ("error" in impl):
        m = "refused: " + model["error"] if "error" in model else "accepted"
        i = "refused: " + impl["error"] if "error" in impl else "accepted"
        return ("refused", m, i)
    strip = lambda a: {k: v for k, v in canonical(a).items() if k != "error"}  # noqa: E731
    return first_difference(strip(model), strip(impl))


# ---------------------------------------------------------------- traces


def load_trace(path: str):
    with open(path) as f:
        trace = json.load(f)
    config = trace.get("config")
    if config is None:
        model = trace["model"]
        for base in (os.getcwd(), os.path.dirname(path)):
            candidate = os.path.join(base, model)
            if os.path.isfile(candidate):
                with open(candidate) as f:
                    config = json.load(f)
                break
        else:
            raise SystemExit(f"{path}: model {model!r} not found")
    return config, trace.get("steps", [])


class Tally:
    def __init__(self):
        self.traces = self.steps = self.agreed_traces = self.agreed_steps = 0
        self.refused = 0
        self.departures: list[str] = []
        self.outcomes: set[str] = set()

    def saw(self, step: dict, answer: dict) -> None:
        """Labels of what the model decided (so a run can say which
        outcomes its agreement covers)."""
        op = step.get("op")
        if "error" in answer:
            self.outcomes.add(f"{op}.refused")
            return
        out = answer.get("outcome") or {}
        if op == "open":
            self.outcomes.add(f"open.{step.get('tier')}")
        elif op == "stage":
            self.outcomes.add(f"stage.{step['record'].get('kind')}")
        elif op == "commit":
            self.outcomes.add(f"commit.{out.get('status')}")
            for v in out.get("records", []):
                self.outcomes.add(f"record.{v['result']}.{v.get('reason') or '-'}")
                if v.get("admission"):
                    self.outcomes.add(f"record.admitted.{v['admission']}")
                if v.get("superseded"):
                    self.outcomes.add("record.superseded_rivals")
        elif op == "tool_call":
            self.outcomes.add(f"gate.{'allowed' if out.get('allowed') else 'blocked'}.{out.get('reason') or '-'}")
            if out.get("in_snapshot"):
                self.outcomes.add("gate.tentative_in_snapshot")
        elif op in ("abort", "revoke"):
            roots = set(out.get("roots", []))
            for r in out.get("repairs", []):
                self.outcomes.add(f"{op}.{'root' if r['id'] in roots else 'descendant'}.{r['repair']}")
        elif op == "revalidate":
            self.outcomes.add(f"revalidate.after.{out.get('was') or 'cascade'}")
        elif op == "rebuild":
            self.outcomes.add(f"rebuild.{'dropped_revoked' if out.get('dropped') else 'kept_every_source'}")


def run_trace(name, config, steps, model: Driver, impl: Driver, tally: Tally, save=None):
    """Replays fixed `steps` on both; True when they agree throughout."""
    return run_walk(name, config, iter(steps), model, impl, tally, save)


def run_walk(name, config, steps, model, impl, tally, save=None):
    """`steps` yields STEPs; one with `send_answer` (a Walk) is told the
    model's answer to each, to choose the next. True when both agree."""
    tally.traces += 1
    for side in (model, impl):
        ready = side.ask({"reset": config})
        if ready.get("ok") is not True:
            raise Broken(f"{side.name}: reset answered {ready}")
    sent = []
    for i, step in enumerate(steps):
        sent.append(step)
        a = model.ask({"step": step})
        b = impl.ask({"step": step})
        if hasattr(steps, "send_answer"):
            steps.send_answer(a)
        tally.steps += 1
        tally.refused += "error" in a
        tally.saw(step, a)
        d = compare_answers(a, b)
        if d:
            path, mv, iv = d
            where = f"{name}: step {i} ({step.get('op')}) departs: {path}: model {_show(mv)}, {impl.name} {_show(iv)}"
            where += f"\n    step: {_show(step)}"
            if save:
                os.makedirs(save, exist_ok=True)
                out = os.path.join(save, f"{safe(name)}.json")
                with open(out, "w") as f:
                    json.dump({"config": config, "steps": sent, "violation": None}, f, indent=1)
                where += f"\n    trace: {out} (memtx-check replay {out})"
            tally.departures.append(where)
            return False
        tally.agreed_steps += 1
    tally.agreed_traces += 1
    return True


def safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in name)


# ---------------------------------------------------------------- random walks


class Walk:
    """Random steps over one model's templates, tools and tiers, chosen
    from what the store holds now (the model's last answer)."""

    def __init__(self, config: dict, rng: random.Random, steps: int):
        self.rng = rng
        self.left = steps
        bounds = config.get("bounds") or {}
        # The bounds are the model's, not the protocol's: a walk may go a
        # little past them, so that it goes on after they are reached.
        self.max_records = (bounds.get("records") or 4) + 2
        self.max_txs = (bounds.get("transactions") or 3) + 2
        self.agents = config.get("agents") or 2
        self.tiers = config.get("tiers") or ["low", "medium", "high", "external_action"]
        self.tools = [t["name"] for t in config.get("tools") or []]
        self.templates = config.get("templates") or []
        self.revalidate = bool(config.get("revalidate"))
        self.rebuild = bool(config.get("rebuild"))
        self.records: list[dict] = []
        # Per transaction: status (open, committed, aborted) and the ids
        # it sees (its snapshot and what it staged), from the answers.
        self.txs: list[dict] = []
        self.pending = None

    def __iter__(self):
        return self

    def send_answer(self, answer: dict) -> None:
        self.records = answer.get("records", self.records)
        step, self.pending = self.pending, None
        if "error" in answer or step is None:
            return
        out = answer["outcome"]
        op = step["op"]
        if op == "open":
            self.txs.append({"status": "open", "sees": set(out["snapshot"])})
        elif op == "commit":
            self.txs[step["tx"]]["status"] = "committed"
        elif op == "abort":
            self.txs[step["tx"]]["status"] = "aborted"
        elif op == "stage":
            self.txs[step["tx"]]["sees"].add(out["record"])
        elif op in ("revalidate", "rebuild"):
            self.txs[step["tx"]]["sees"].add(step["record"])

    def __next__(self) -> dict:
        if self.left <= 0:
            raise StopIteration
        self.left -= 1
        self.pending = self._choose()
        if self.pending is None:
            raise StopIteration
        return self.pending

    def _txs(self, *statuses):
        return [i for i, t in enumerate(self.txs) if t["status"] in statuses]

    def _choose(self):
        """The next step, or None when the walk is stuck (only steps the
        protocol refuses are left)."""
        r = self.rng
        open_txs = self._txs("open")
        live_txs = self._txs("open", "committed")
        room = len(self.records) < self.max_records
        options = []
        if len(self.txs) < self.max_txs:
            options.append(self._open)
        if open_txs and room and self.templates:
            options += [self._stage] * 3
        if open_txs:
            options += [self._commit, self._commit, self._abort]
        if any(rec["state"] in ("committed", "action_safe") for rec in self.records):
            options.append(self._revoke)
        if self.tools and live_txs and room:
            options += [self._tool_call] * 2
        if open_txs and any(rec["state"] == "quarantined" for rec in self.records):
            # The model offers revalidation only with the switch on; the
            # protocol takes it always.
            options += [self._revalidate] * (2 if self.revalidate else 1)
            options += [self._rebuild] * (2 if self.rebuild else 1)
        if not options:
            return None
        if r.random() < 0.08:
            return self._wild()
        return r.choice(options)()

    def _open(self):
        return {"op": "open", "agent": self.rng.randrange(self.agents), "tier": self.rng.choice(self.tiers)}

    def _open_tx(self):
        return self.rng.choice(self._txs("open"))

    def _fields(self, t: dict) -> dict:
        return {k: t.get(k) for k in ("kind", "entity", "attribute", "value", "source", "authority",
                                      "confidence", "scope", "valid_from", "valid_to", "owner")}

    def _stage(self):
        r = self.rng
        t = r.choice(self.templates)
        ids = [rec["id"] for rec in self.records]
        parent = t.get("parent") or "none"
        needs = {"required": 1, "two": 2}.get(parent, 0)
        if len(ids) < needs:
            t = r.choice([x for x in self.templates if (x.get("parent") or "none") in ("none", "optional")] or [t])
            parent = t.get("parent") or "none"
        derived = []
        if ids and (parent == "required" or (parent == "optional" and r.random() < 0.5)):
            # Often the newest record, so that chains of ancestry grow.
            derived = [ids[-1] if r.random() < 0.4 else r.choice(ids)]
        elif parent == "two" and len(ids) >= 2:
            derived = sorted(r.sample(ids, 2))
        rec = self._fields(t)
        rec["derived_from"] = derived
        return {"op": "stage", "tx": self._open_tx(), "record": rec}

    def _commit(self):
        return {"op": "commit", "tx": self._open_tx()}

    def _abort(self):
        return {"op": "abort", "tx": self._open_tx()}

    def _revoke(self):
        ok = [rec["id"] for rec in self.records if rec["state"] in ("committed", "action_safe")]
        return {"op": "revoke", "record": self.rng.choice(ok)}

    def _tool_call(self):
        r = self.rng
        tx = r.choice(self._txs("open", "committed"))
        sees = self.txs[tx]["sees"]
        active = [rec["id"] for rec in self.records
                  if rec["id"] in sees and rec["state"] in ("validated", "committed", "action_safe")]
        if active and r.random() < 0.85:
            pool = active
        elif r.random() < 0.7:
            pool = []  # no basis
        else:
            pool = sorted(sees) if sees and r.random() < 0.5 else [rec["id"] for rec in self.records]
        basis = sorted(r.sample(pool, min(len(pool), r.choice([0, 1, 1, 1, 2]))))
        return {"op": "tool_call", "tx": tx, "tool": r.choice(self.tools), "basis": basis}

    def _back(self, op: str) -> dict:
        """A revalidation or a rebuild of a quarantined record."""
        q = [rec["id"] for rec in self.records if rec["state"] == "quarantined"]
        return {"op": op, "tx": self._open_tx(), "record": self.rng.choice(q)}

    def _revalidate(self):
        return self._back("revalidate")

    def _rebuild(self):
        return self._back("rebuild")

    def _wild(self):
        """A step drawn without looking at the store: often refused."""
        r = self.rng
        tx = r.randrange(len(self.txs) + 1)
        rid = r.randrange(len(self.records) + 1)
        choices = [
            {"op": "commit", "tx": tx},
            {"op": "abort", "tx": tx},
            {"op": "revoke", "record": rid},
            {"op": "revalidate", "tx": tx, "record": rid},
            {"op": "rebuild", "tx": tx, "record": rid},
        ]
        if self.tools:
            choices.append({"op": "tool_call", "tx": tx, "tool": r.choice(self.tools), "basis": [rid]})
        if self.templates:
            rec = self._fields(r.choice(self.templates))
            rec["derived_from"] = [rid]
            choices.append({"op": "stage", "tx": tx, "record": rec})
        return r.choice(choices)


# ---------------------------------------------------------------- random models

DECIMALS = [0.0, 0.4, 0.5, 0.59, 0.6, 0.61, 0.7, 0.89, 0.9, 0.95, 1.0]


def fuzz_config(rng: random.Random, k: int) -> dict:
    """A random model: random tiers, tools, clock, variant switches and
    ablations, and templates whose fields sit on and around every
    threshold, on few slots (so that rivals meet), some on a tool's own
    slot (a tool action's entity and attribute are its tool's name)."""
    tools = [{"name": f"tool{i}", "irreversible": rng.random() < 0.6} for i in range(rng.randrange(0, 4))]
    slots = [("order841", "refund_eligible"), ("order841", "summary"), ("customer17", "profile")]
    slots += [(t["name"], t["name"]) for t in tools[:1]]
    tiers = [t for t in ("low", "medium", "high", "external_action") if rng.random() < 0.6] or ["low"]
    agents = rng.randrange(1, 4)
    templates = []
    for i in range(rng.randrange(1, 7)):
        entity, attribute = rng.choice(slots)
        window = sorted(rng.randrange(0, 12) for _ in range(2))
        templates.append({
            "name": f"t{i}",
            "kind": rng.choice(["belief", "belief", "summary", "profile", "index_entry", "shared_copy"]),
            "entity": entity,
            "attribute": attribute,
            "value": rng.choice(["yes", "no", "maybe"]),
            "source": rng.choice([None, None, "lookup", "crm", tools[0]["name"] if tools else "notes"]),
            "authority": rng.choice(DECIMALS),
            "confidence": rng.choice(DECIMALS),
            "scope": rng.choice(["private", "shared", "public"]),
            "valid_from": window[0] if rng.random() < 0.3 else None,
            "valid_to": window[1] if rng.random() < 0.3 else None,
            "owner": rng.randrange(agents) if rng.random() < 0.2 else None,
            "parent": rng.choice(["none", "optional", "required"]) if i else rng.choice(["none", "optional"]),
        })
    ablate = [m for m in ("gate", "evidence", "validity", "conflict", "permission_inheritance",
                          "dependency_stability", "cascade", "typed_repair") if rng.random() < 0.1]
    return {
        "name": f"fuzz-{k}",
        "bounds": {"records": rng.randrange(2, 9), "transactions": rng.randrange(1, 6), "depth": 10},
        "agents": agents,
        "tiers": tiers,
        "tools": tools,
        "clock": rng.randrange(0, 12) if rng.random() < 0.5 else None,
        "templates": templates,
        "revalidate": rng.random() < 0.5,
        "variant": {
            "same_source_tie": rng.choice(["supersede", "review"]),
            "stale_check_empty_snapshot": rng.choice(["skip", "apply"]),
            "laundering_parents": rng.choice(["active", "any"]),
            "tool_basis": rng.choice(["active", "snapshot"]),
            "ablate": ablate,
        },
    }


# ---------------------------------------------------------------- edge traces


def edge_traces():
    """Built-in traces for what random walks reach rarely or never: the
    store's capacity (64 records, 256 transactions: a blocked call is
    still answered, a call that would make a 65th record is not), a
    high-tier snapshot over a chain of ancestors, and missing sources in
    the conflict check."""
    rec = {"kind": "belief", "entity": "e", "attribute": "a", "value": "v", "confidence": 0.8,
           "scope": "shared", "derived_from": []}
    tools = [{"name": "note", "irreversible": False}, {"name": "refund", "irreversible": True}]
    full = [{"op": "open", "agent": 0, "tier": "low"}] + [{"op": "stage", "tx": 0, "record": rec}] * 63
    full += [
        {"op": "tool_call", "tx": 0, "tool": "refund", "basis": []},
        {"op": "tool_call", "tx": 0, "tool": "note", "basis": []},
        {"op": "tool_call", "tx": 0, "tool": "refund", "basis": []},
        {"op": "tool_call", "tx": 0, "tool": "note", "basis": []},
        {"op": "stage", "tx": 0, "record": rec},
        {"op": "commit", "tx": 0},
        {"op": "revoke", "record": 0},
        {"op": "abort", "tx": 0},
    ]
    opens = [{"op": "open", "agent": 0, "tier": "low"}] * 258 + [{"op": "commit", "tx": 255}]

    def belief(value, source, authority, parents=(), kind="belief", attribute="a"):
        return {"kind": kind, "entity": "e", "attribute": attribute, "value": value, "source": source,
                "authority": authority, "confidence": 0.8, "scope": "shared", "derived_from": list(parents)}

    def one(tx, record):
        return [{"op": "stage", "tx": tx, "record": record}, {"op": "commit", "tx": tx}]

    low = {"op": "open", "agent": 0, "tier": "low"}
    # A high-tier snapshot reads every transitive ancestor: r2's parent r1
    # is committed, but r1's parent r0 has been superseded by r3.
    high = [low] + one(0, belief("yes", "lookup", 0.7)) + [low] + one(1, belief("s", "lookup", 0.7, [0], "summary", "s"))
    high += [low] + one(2, belief("s2", "lookup", 0.7, [1], "summary", "s2"))
    high += [low] + one(3, belief("no", "crm", 0.9)) + [{"op": "open", "agent": 0, "tier": "high"}]
    # A missing source weighs 0.5 in the conflict check, whatever it
    # claims; two missing sources are the same source.
    missing = [low] + one(0, belief("yes", None, 0.95)) + [low] + one(1, belief("no", None, 0.6))
    missing += [low] + one(2, belief("maybe", "lookup", 0.7))
    return [
        ("edge:64-records", {"tools": tools}, full),
        ("edge:256-transactions", {"tools": tools}, opens),
        ("edge:high-tier-ancestry", {}, high),
        ("edge:missing-source", {}, missing),
        ("edge:missing-source-review", {"variant": {"same_source_tie": "review"}}, missing),
    ]


# ---------------------------------------------------------------- bad requests

GOOD_RECORD = {"kind": "belief", "entity": "e", "attribute": "a", "value": "v", "confidence": 0.8,
               "scope": "shared"}
BAD_REQUESTS = [
    "not json",
    "[]",
    "{}",
    '{"reset": {}, "step": {"op": "commit", "tx": 0}}',
    '{"restart": {}}',
    '{"reset": {"colour": "red"}}',
    '{"reset": {"tiers": []}}',
    '{"reset": {"agents": 0}}',
    '{"reset": {"tools": [{"name": "t", "irreversible": true}, {"name": "t", "irreversible": false}]}}',
    '{"reset": {"tools": [{"name": "t"}]}}',
    '{"reset": {"variant": {"tool_basis": "anything"}}}',
    '{"reset": {"variant": {"ablate": ["gate", "gate"]}}}',
    '{"reset": {"variant": {"ablate": ["brakes"]}}}',
    '{"reset": {"clock": "noon"}}',
    '{"reset": {"name": "../x"}}',
    '{"reset": {"name": ".hidden"}}',
    '{"reset": {"templates": [{"name": "s", "kind": "summary", "entity": "e", "attribute": "a", "value": "v", '
    '"confidence": 0.8, "scope": "shared", "parent": "required"}]}}',
    '{"reset": {"templates": [{"name": "t", "kind": "tool_action", "entity": "e", "attribute": "a", "value": "v", '
    '"confidence": 0.8, "scope": "shared"}]}}',
    '{"step": {"op": "dance"}}',
    '{"step": {"op": "commit"}}',
    '{"step": {"op": "commit", "tx": "0"}}',
    '{"step": {"op": "commit", "tx": true}}',
    '{"step": {"op": "commit", "tx": 256}}',
    '{"step": {"op": "commit", "tx": 0, "tx": 0}}',
    '{"step": {"op": "open", "agent": 0, "tier": "low", "tx": 0}}',
    '{"step": {"op": "open", "agent": 2, "tier": "low"}}',
    '{"step": {"op": "open", "agent": 0, "tier": "urgent"}}',
    '{"step": {"op": "open", "agent": 0, "tier": "high"}}',
    '{"step": {"op": "revoke", "record": -1}}',
    '{"step": {"op": "revoke", "record": 64}}',
    '{"step": {"op": "tool_call", "tx": 0, "tool": "drill", "basis": []}}',
    '{"step": {"op": "tool_call", "tx": 0, "tool": "refund", "basis": [0, 0]}}',
    # A staged record with one field wrong (None: the field left out).
    *(
        json.dumps({"step": {"op": "stage", "tx": 0, "record": {
            k: v for k, v in {**GOOD_RECORD, **change}.items() if v is not None}}})
        for change in (
            {"kind": None},
            {"confidence": 0.555},
            {"confidence": 1.5},
            {"valid_from": 5, "valid_to": 4},
            {"scope": "everyone"},
            {"owner": 9},
            {"mood": "good"},
            {"derived_from": [64]},
        )
    ),
]

PROBE_CONFIG = {"agents": 2, "tiers": ["low", "external_action"],
                "tools": [{"name": "refund", "irreversible": True}]}
PROBE_SETUP = [
    {"op": "open", "agent": 0, "tier": "low"},
    {"op": "stage", "tx": 0, "record": {"kind": "belief", "entity": "e", "attribute": "a", "value": "v",
                                        "confidence": 0.8, "scope": "shared", "derived_from": []}},
]


def probe_bad_requests(exe: str, impl_argv: list[str], impl_name: str, tally: Tally) -> None:
    """Each bad request, sent after a reset and two steps, must be
    answered bad_request by both sides and change nothing: the next step
    (a commit) must still agree. A step before any reset is bad too."""
    for i, text in enumerate(["{\"step\": {\"op\": \"commit\", \"tx\": 0}}"] + BAD_REQUESTS):
        tally.traces += 1
        answers = []
        for name, argv in (("model", [exe, "driver"]), (impl_name, impl_argv)):
            lines = [] if i == 0 else [{"reset": PROBE_CONFIG}] + [{"step": s} for s in PROBE_SETUP]
            feed = "".join(json.dumps(x) + "\n" for x in lines) + text + "\n"
            feed += json.dumps({"step": {"op": "commit", "tx": 0}}) + "\n"
            done = subprocess.run(argv, input=feed.encode(), capture_output=True, cwd=ROOT, timeout=60)
            out = done.stdout.decode(errors="replace").splitlines()
            if done.returncode != 0 or len(out) != len(lines) + 2:
                raise Broken(f"{name}: bad request {text!r}: exit {done.returncode}, {len(out)} answers "
                             f"for {len(lines) + 2} requests: {done.stderr.decode(errors='replace')[-300:]}")
            try:
                answers.append([json.loads(line) for line in out])
            except json.JSONDecodeError:
                raise Broken(f"{name}: bad request {text!r}: an answer is not JSON") from None
        model, impl = answers
        tally.steps += 1
        bad = "bad_request" in impl[-2]
        if "bad_request" not in model[-2]:
            raise Broken(f"probe {text!r}: the model did not answer bad_request but {model[-2]}")
        after = None if i == 0 else compare_answers(model[-1], impl[-1])
        if not bad:
            tally.departures.append(f"bad request {text!r}: model bad_request, {impl_name} {_show(impl[-2])[:200]}")
        elif after:
            tally.departures.append(f"bad request {text!r} changed the store: next step {after}")
        else:
            tally.agreed_traces += 1
            tally.agreed_steps += 1


def model_files() -> list[str]:
    return sorted(glob.glob(os.path.join(ROOT, "models", "*.json")) + glob.glob(os.path.join(ROOT, "models", "*", "*.json")))


def trace_files() -> list[str]:
    return sorted(p for p in glob.glob(os.path.join(ROOT, "traces", "*.json")) if not p.endswith(".itf.json"))


# ---------------------------------------------------------------- main


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--exe", default=os.path.join(ROOT, "target", "release", "memtx-check"),
                   help="the memtx-check binary whose `driver` is the model")
    p.add_argument("--driver", default=f"{shlex.quote(sys.executable)} {shlex.quote(os.path.join(HERE, 'driver.py'))}",
                   help="the implementation's driver command")
    p.add_argument("--name", default="python", help="the implementation's name in reports")
    p.add_argument("--walks", type=int, default=200, help="random walks per model")
    p.add_argument("--steps", type=int, default=30, help="steps per random walk at most")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--fuzz", type=int, default=300, help="random walks over random models")
    p.add_argument("--quick", action="store_true", help="CI size: the shipped traces, the bad requests, "
                   "10 short walks per model and 30 over random models")
    p.add_argument("--no-probes", action="store_true", help="skip the bad-request probes")
    p.add_argument("--outcomes", action="store_true", help="list the outcomes the model gave")
    p.add_argument("--no-traces", action="store_true", help="skip traces/*.json")
    p.add_argument("--save", metavar="DIR", help="write each departing walk as a trace file in DIR")
    p.add_argument("--max-departures", type=int, default=20, help="stop after this many departing traces")
    args = p.parse_args(argv)
    if args.quick:
        args.walks, args.steps, args.fuzz = 10, 25, 30
    if not os.path.exists(args.exe):
        print(f"compare.py: {args.exe} does not exist (cargo build --release)", file=sys.stderr)
        return 2
    tally = Tally()
    started = time.monotonic()
    try:
        model = Driver("model", [args.exe, "driver"])
        impl = Driver(args.name, shlex.split(args.driver))
        try:
            if not args.no_traces:
                for path in trace_files():
                    config, steps = load_trace(path)
                    run_trace(os.path.relpath(path, ROOT), config, steps, model, impl, tally)
                for name, config, steps in edge_traces():
                    run_trace(name, config, steps, model, impl, tally)
            for path in model_files():
                with open(path) as f:
                    config = json.load(f)
                rel = os.path.relpath(path, ROOT)
                for w in range(args.walks):
                    if len(tally.departures) >= args.max_departures:
                        break
                    seed = (args.seed * 1_000_003 + w) ^ hash_name(rel)
                    walk = Walk(config, random.Random(seed), args.steps)
                    run_walk(f"{rel}#walk{w}-seed{seed}", config, walk, model, impl, tally, args.save)
            rng = random.Random(args.seed)
            for k in range(args.fuzz):
                if len(tally.departures) >= args.max_departures:
                    break
                config = fuzz_config(rng, k)
                walk = Walk(config, random.Random(rng.getrandbits(64)), args.steps)
                run_walk(f"fuzz-{k}-seed{args.seed}", config, walk, model, impl, tally, args.save)
        finally:
            for side in (model, impl):
                side.close()
        if not args.no_probes:
            probe_bad_requests(args.exe, shlex.split(args.driver), args.name, tally)
    except Broken as e:
        print(f"compare.py: a driver broke the protocol: {e}", file=sys.stderr)
        return 2
    for d in tally.departures:
        print(d)
    took = time.monotonic() - started
    if args.outcomes:
        print("outcomes the model gave:", " ".join(sorted(tally.outcomes)))
    print(
        f"{tally.agreed_traces} of {tally.traces} traces agree; {tally.agreed_steps} of {tally.steps} "
        f"steps compared agree ({tally.refused} of them refused by the model); "
        f"{len(tally.outcomes)} distinct outcomes; {took:.1f} s"
    )
    return 1 if tally.departures else 0


def hash_name(name: str) -> int:
    """A seed part from a name, the same on every run (not hash())."""
    h = 0
    for ch in name.encode():
        h = (h * 131 + ch) % (1 << 61)
    return h


if __name__ == "__main__":
    sys.exit(main())
