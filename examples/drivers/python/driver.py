#!/usr/bin/env python3
"""The driver protocol (docs/driver-protocol.md, version 1) around memtx.py.

This file owns the wire: reading one JSON request a line on stdin,
checking it (a request that is not valid is answered
{"bad_request": ...} and changes nothing, never a traceback), turning
CONFIG and STEP into memtx.py's objects, and writing one answer a line on
stdout in the shapes the contract names, flushed after every answer. At
the end of stdin it exits 0.

Run:  python3 examples/drivers/python/driver.py
"""

from __future__ import annotations

import json
import math
import re
import sys
import traceback

sys.dont_write_bytecode = True  # leave no __pycache__ beside the sources
import memtx  # noqa: E402

PROTOCOL_VERSION = 1
MAX_REQUEST_BYTES = 16 << 20
MAX_RECORDS = memtx.MAX_RECORDS  # record ids a step may name: 0..63
MAX_TX_ID = memtx.MAX_TRANSACTIONS - 1
MAX_AGENTS = 255
MAX_TOOLS = 128
MAX_TEMPLATES = 128
I32 = (-(2**31), 2**31 - 1)


class BadRequest(Exception):
    """A request the driver cannot take."""


# ---------------------------------------------------------------- JSON


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise BadRequest(f"{key!r} is given twice in one object")
        out[key] = value
    return out


def _no_constants(name):
    raise BadRequest(f"{name} is not JSON")


def parse_json(text: str):
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except json.JSONDecodeError as e:
        raise BadRequest(f"not JSON: {e}") from None


# ---------------------------------------------------------------- field checks


class Fields:
    """One JSON object being read, with its path for messages."""

    def __init__(self, value, path: str, known):
        if not isinstance(value, dict):
            raise BadRequest(f"{path or 'value'}: {_show(value)} is not an object")
        unknown = [k for k in value if k not in known]
        if unknown:
            raise BadRequest(
                f"{self._at(path, unknown[0])}: unknown field (known: {', '.join(known)})"
            )
        self.value = value
        self.path = path

    @staticmethod
    def _at(path, key):
        return f"{path}.{key}" if path else key

    def at(self, key):
        return self._at(self.path, key)

    def get(self, key):
        """The field, None when absent or null (null reads as absent)."""
        return self.value.get(key)

    def required(self, key):
        v = self.get(key)
        if v is None:
            raise BadRequest(f"{self.at(key)}: missing")
        return v

    def int_in(self, key, lo, hi, value=None):
        v = self.get(key) if value is None else value
        if v is None:
            raise BadRequest(f"{self.at(key)}: missing")
        if not _is_int(v):
            raise BadRequest(f"{self.at(key)}: {_show(v)} is not an integer")
        if not lo <= v <= hi:
            raise BadRequest(f"{self.at(key)}: {v} is out of range {lo}..={hi}")
        return v

    def string(self, key, required=False):
        v = self.required(key) if required else self.get(key)
        if v is not None and not isinstance(v, str):
            raise BadRequest(f"{self.at(key)}: {_show(v)} is not a string")
        return v

    def boolean(self, key):
        v = self.get(key)
        if v is not None and not isinstance(v, bool):
            raise BadRequest(f"{self.at(key)}: {_show(v)} is not true or false")
        return v

    def one_of(self, key, names, required=True):
        v = self.required(key) if required else self.get(key)
        if v is not None and v not in names:
            raise BadRequest(f"{self.at(key)}: {_show(v)} is not one of {', '.join(names)}")
        return v

    def listed(self, key):
        v = self.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            raise BadRequest(f"{self.at(key)}: {_show(v)} is not a list")
        return v


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(v) -> str:
    text = json.dumps(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _decimal(f: Fields, key, default=None) -> int:
    """A decimal in [0, 1] on the hundredths grid, as hundredths."""
    v = f.get(key)
    if v is None:
        if default is None:
            raise BadRequest(f"{f.at(key)}: missing")
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise BadRequest(f"{f.at(key)}: {_show(v)} is not a number")
    h = round(v * 100)
    if not 0 <= h <= 100 or abs(v * 100 - h) > 1e-6:
        raise BadRequest(f"{f.at(key)}: {v} is not a decimal in [0, 1] on the hundredths grid")
    return h


def _ids(f: Fields, key) -> list[int]:
    out = []
    for i, v in enumerate(f.listed(key)):
        path = f"{key}[{i}]"
        if not _is_int(v):
            raise BadRequest(f"{f.at(path)}: {_show(v)} is not a record id")
        f.int_in(path, 0, MAX_RECORDS - 1, value=v)
        if v in out:
            raise BadRequest(f"{f.at(path)}: {v} is listed twice")
        out.append(v)
    return out


RECORD_FIELDS = (
    "kind",
    "entity",
    "attribute",
    "value",
    "source",
    "authority",
    "confidence",
    "scope",
    "valid_from",
    "valid_to",
    "owner",
)


def _window(f: Fields):
    lo = f.int_in("valid_from", *I32) if f.get("valid_from") is not None else None
    hi = f.int_in("valid_to", *I32) if f.get("valid_to") is not None else None
    if lo is not None and hi is not None and lo > hi:
        raise BadRequest(f"{f.at('valid_to')}: {hi} is before valid_from {lo}")
    return lo, hi


def _record_fields(f: Fields, agents: int) -> dict:
    owner = f.get("owner")
    if owner is not None:
        f.int_in("owner", 0, agents - 1)
    lo, hi = _window(f)
    return {
        "kind": f.one_of("kind", memtx.KINDS),
        "entity": f.string("entity", required=True),
        "attribute": f.string("attribute", required=True),
        "value": f.string("value", required=True),
        "source": f.string("source"),
        "authority": _decimal(f, "authority", default=memtx.MISSING_SOURCE_AUTHORITY),
        "confidence": _decimal(f, "confidence"),
        "scope": f.one_of("scope", memtx.SCOPES),
        "valid_from": lo,
        "valid_to": hi,
        "owner": owner,
    }


# ---------------------------------------------------------------- CONFIG


CONFIG_FIELDS = (
    "name",
    "description",
    "bounds",
    "agents",
    "tiers",
    "tools",
    "clock",
    "templates",
    "revalidate",
    "rebuild",
    "variant",
    "expect",
    "symmetry",
)
VARIANT_FIELDS = (
    "same_source_tie",
    "stale_check_empty_snapshot",
    "laundering_parents",
    "tool_basis",
    "ablate",
)
EXPECT_FIELDS = (
    "I1",
    "I2",
    "G3",
    "evidence",
    "validity",
    "one-value-per-slot",
    "scope",
    "lifecycle",
    "log-completeness",
    "stale-write",
    "tx-hygiene",
    "snapshot",
    "admission",
    "honest-outcome",
    "refusals",
    "coverage",
)


NAME = re.compile(r"(?!\.)[A-Za-z0-9._-]{1,100}")
NAME_RULE = "a name is 1 to 100 of the characters A-Z a-z 0-9 . _ - and does not start with '.'"


class Config:
    """What a reset's CONFIG says, checked: the part the protocol reads
    (tools, clock, variant, revalidate) and the part steps are checked
    against (agents, tiers). Bounds, templates and expect describe the
    model; their shapes are checked, their meaning is not used."""

    def __init__(self, value):
        f = Fields(value, "reset", CONFIG_FIELDS)
        name = f.string("name")
        if name is not None and not NAME.fullmatch(name):
            # docs/models.md, "The fields": the name becomes runs/NAME/.
            raise BadRequest(f"reset.name: {_show(name)} is not a model name ({NAME_RULE})")
        f.string("description")
        f.boolean("symmetry")
        f.boolean("revalidate")  # the model's switch: the protocol always takes revalidate
        f.boolean("rebuild")  # the same for rebuild
        self.agents = f.int_in("agents", 1, MAX_AGENTS) if f.get("agents") is not None else 2
        tiers = f.listed("tiers") if f.get("tiers") is not None else list(memtx.TIERS)
        if not tiers:
            raise BadRequest("reset.tiers: [] is empty (allow at least one risk tier)")
        for i, tier in enumerate(tiers):
            if tier not in memtx.TIERS:
                raise BadRequest(f"reset.tiers[{i}]: {_show(tier)} is not one of {', '.join(memtx.TIERS)}")
            if tier in tiers[:i]:
                raise BadRequest(f"reset.tiers[{i}]: {_show(tier)} is listed twice")
        self.tiers = tiers
        self.tools = self._tools(f)
        self.clock = f.int_in("clock", *I32) if f.get("clock") is not None else None
        self.variant = self._variant(f.get("variant"))
        if f.get("bounds") is not None:
            b = Fields(f.get("bounds"), "reset.bounds", ("records", "transactions", "depth"))
            if b.get("records") is not None:
                b.int_in("records", 1, MAX_RECORDS)
            if b.get("transactions") is not None:
                b.int_in("transactions", 1, 255)
            if b.get("depth") is not None and b.get("depth") != "full":
                b.int_in("depth", 0, 1000)
        templates = f.listed("templates")
        if len(templates) > MAX_TEMPLATES:
            raise BadRequest(f"reset.templates: more than {MAX_TEMPLATES}")
        for i, t in enumerate(templates):
            tf = Fields(t, f"reset.templates[{i}]", ("name",) + RECORD_FIELDS + ("parent",))
            tf.string("name", required=True)
            _record_fields(tf, self.agents)
            if tf.get("kind") == "tool_action":
                raise BadRequest(f"{tf.at('kind')}: \"tool_action\" cannot be a template")
            tf.one_of("parent", ("none", "optional", "required", "two"), required=False)
        if templates and all(t.get("parent") in ("required", "two") for t in templates):
            # docs/models.md, "Templates": then no record could ever be the first parent.
            raise BadRequest("reset.templates[0].parent: every template requires a parent")
        if f.get("expect") is not None:
            Fields(f.get("expect"), "reset.expect", EXPECT_FIELDS)

    @staticmethod
    def _tools(f: Fields):
        tools = []
        raw = f.listed("tools")
        if len(raw) > MAX_TOOLS:
            raise BadRequest(f"reset.tools: more than {MAX_TOOLS} tools")
        for i, t in enumerate(raw):
            tf = Fields(t, f"reset.tools[{i}]", ("name", "irreversible"))
            name = tf.string("name", required=True)
            if not name:
                raise BadRequest(f"{tf.at('name')}: empty")
            irreversible = tf.boolean("irreversible")
            if irreversible is None:
                raise BadRequest(f"{tf.at('irreversible')}: missing")
            if any(x.name == name for x in tools):
                raise BadRequest(f"{tf.at('name')}: {name!r} is a duplicate tool name")
            tools.append(memtx.Tool(name, irreversible))
        return tools

    @staticmethod
    def _variant(value):
        v = memtx.Variant()
        if value is None:
            return v
        f = Fields(value, "reset.variant", VARIANT_FIELDS)
        v.same_source_tie = f.one_of("same_source_tie", ("supersede", "review"), False) or v.same_source_tie
        v.stale_check_empty_snapshot = (
            f.one_of("stale_check_empty_snapshot", ("skip", "apply"), False) or v.stale_check_empty_snapshot
        )
        v.laundering_parents = f.one_of("laundering_parents", ("active", "any"), False) or v.laundering_parents
        v.tool_basis = f.one_of("tool_basis", ("active", "snapshot"), False) or v.tool_basis
        ablate = []
        for i, m in enumerate(f.listed("ablate")):
            if m not in memtx.MECHANISMS:
                raise BadRequest(f"reset.variant.ablate[{i}]: {_show(m)} is not one of {', '.join(memtx.MECHANISMS)}")
            if m in ablate:
                raise BadRequest(f"reset.variant.ablate[{i}]: {_show(m)} is listed twice")
            ablate.append(m)
        v.ablate = frozenset(ablate)
        return v


# ---------------------------------------------------------------- STEP

OPS = {
    "open": ("agent", "tier"),
    "stage": ("tx", "record"),
    "commit": ("tx",),
    "abort": ("tx",),
    "revoke": ("record",),
    "tool_call": ("tx", "tool", "basis"),
    "revalidate": ("tx", "record"),
    "rebuild": ("tx", "record"),
}
STEP_FIELDS = ("op", "agent", "tier", "tx", "record", "tool", "basis")


def apply_step(store: memtx.Store, config: Config, value) -> dict:
    """Checks STEP and applies it: the outcome (raises memtx.Refused)."""
    f = Fields(value, "step", STEP_FIELDS)
    op = f.one_of("op", tuple(OPS))
    for key in STEP_FIELDS[1:]:
        if key in f.value and key not in OPS[op]:
            raise BadRequest(f"step.{key}: not a field of a {op!r} step (it takes {', '.join(OPS[op])})")
    tx = f.int_in("tx", 0, MAX_TX_ID) if "tx" in OPS[op] else None
    if op == "open":
        agent = f.int_in("agent", 0, config.agents - 1)
        tier = f.one_of("tier", memtx.TIERS)
        if tier not in config.tiers:
            raise BadRequest(f"step.tier: {tier!r} is not a tier the configuration allows")
        return store.open(agent, tier)
    if op == "stage":
        rf = Fields(f.required("record"), "step.record", RECORD_FIELDS + ("derived_from",))
        fields = _record_fields(rf, config.agents)
        return store.stage(tx, memtx.Proposal(derived_from=tuple(_ids(rf, "derived_from")), **fields))
    if op == "commit":
        return store.commit(tx)
    if op == "abort":
        return store.abort(tx)
    if op in ("revoke", "revalidate", "rebuild"):
        rid = f.int_in("record", 0, MAX_RECORDS - 1)
        if op == "revoke":
            return store.revoke(rid)
        return store.revalidate(tx, rid) if op == "revalidate" else store.rebuild(tx, rid)
    tool = f.string("tool", required=True)
    if tool not in store.tools:
        raise BadRequest(f"step.tool: {tool!r} is not a tool of the configuration")
    return store.tool_call(tx, tool, _ids(f, "basis"))


# ---------------------------------------------------------------- answers


def record_json(r: memtx.Record) -> dict:
    return {
        "id": r.id,
        "kind": r.kind,
        "state": r.state,
        "entity": r.entity,
        "attribute": r.attribute,
        "value": r.value,
        "source": r.source,
        "authority": r.authority / 100,
        "confidence": r.confidence / 100,
        "owner": r.owner,
        "scope": r.scope,
        "derived_from": sorted(r.derived_from),
        "valid_from": r.valid_from,
        "valid_to": r.valid_to,
        "reason": r.reason,
        "tool": r.tool,
    }


class Session:
    """The driver's state between requests: the last reset's
    configuration and its store."""

    def __init__(self):
        self.config: Config | None = None
        self.store: memtx.Store | None = None
        self.broken: str | None = None

    def answer(self, text: str) -> dict:
        request = parse_json(text)
        if not isinstance(request, dict):
            raise BadRequest("not an object: a request is {\"reset\": CONFIG} or {\"step\": STEP}")
        if len(request) != 1:
            raise BadRequest(f"a request holds exactly one of `reset` and `step` (it holds {len(request)})")
        (key, body), = request.items()
        if key == "reset":
            config = Config(body)
            self.config = config
            self.store = memtx.Store(config.tools, config.clock, config.variant)
            self.broken = None
            return {
                "ok": True,
                "driver_protocol": PROTOCOL_VERSION,
                "implementation": {"name": "memtx-py", "version": "0.1.0", "language": "python"},
            }
        if key != "step":
            raise BadRequest(f"{key!r} is not a request (reset, step)")
        if self.store is None:
            raise BadRequest("a step before any reset (send {\"reset\": CONFIG} first)")
        if self.broken:
            raise BadRequest(f"the store is undefined after an internal error ({self.broken}); reset")
        try:
            outcome = apply_step(self.store, self.config, body)
            answer = {"outcome": outcome}
        except memtx.Refused as e:
            answer = {"error": str(e)}
        except BadRequest:
            raise
        except Exception as e:  # a bug in memtx.py: say so, never a traceback on stdout
            traceback.print_exc(file=sys.stderr)
            self.broken = f"{type(e).__name__}: {e}"
            raise BadRequest(f"internal error: {self.broken}") from None
        answer["records"] = [record_json(r) for r in self.store.records]
        answer["rollback_log"] = list(self.store.log)
        return answer


def serve(stdin, stdout) -> None:
    """Answers each request line of `stdin` on `stdout` until its end."""
    session = Session()
    number = 0
    while True:
        # At most the longest request and its newline.
        line = stdin.readline(MAX_REQUEST_BYTES + 1)
        if not line:
            break
        number += 1
        if len(line) > MAX_REQUEST_BYTES and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):  # skip the rest of it
                line = stdin.readline(1 << 20)
            answer = {"bad_request": f"request {number}: longer than {MAX_REQUEST_BYTES} bytes"}
        else:
            try:
                answer = session.answer(line.decode("utf-8").rstrip("\r\n"))
            except UnicodeDecodeError:
                answer = {"bad_request": f"request {number}: not UTF-8"}
            except RecursionError:
                answer = {"bad_request": f"request {number}: nested too deeply"}
            except BadRequest as e:
                answer = {"bad_request": f"request {number}: {e}"}
            except Exception as e:  # a bug here: say so on stderr, never a traceback on stdout
                traceback.print_exc(file=sys.stderr)
                answer = {"bad_request": f"request {number}: internal error: {type(e).__name__}: {e}"}
        stdout.write(json.dumps(answer, separators=(",", ":")).encode() + b"\n")
        stdout.flush()


def main() -> int:
    try:
        serve(sys.stdin.buffer, sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
