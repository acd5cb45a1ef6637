"""MemTX, a small independent implementation of the protocol.

This module owns the protocol's semantics and nothing else: records and
their lifecycle, transactions and their snapshots, the commit pipeline
with its four ordered checks, the action gate, typed cascading repair,
revalidation and the rollback log, plus the variant switches and
ablations a model configuration selects. It knows no JSON and no wire
format (driver.py owns those).

It is written from the protocol card (seeds/memtx-paper-card.md) and our
readings of its open points (DESIGN.md, "Protocol: readings of points the
card leaves open"), not from memtx-check's Rust sources. Where neither
document says what happens, a comment marked "DOC GAP" says so and which
reading this file takes (and how it was settled).

Decimals (authority, confidence) are kept as integers in hundredths, as
DESIGN.md asks, so that the inclusive thresholds 0.6 and 0.9 compare
exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# ---------------------------------------------------------------- names

TIERS = ("low", "medium", "high", "external_action")
KINDS = ("belief", "summary", "profile", "index_entry", "shared_copy", "tool_action")
VIEWS = frozenset({"summary", "profile", "index_entry", "shared_copy"})
SCOPES = ("private", "shared", "public")
ACTIVE = frozenset({"validated", "committed", "action_safe"})
MECHANISMS = (
    "gate",
    "evidence",
    "validity",
    "conflict",
    "permission_inheritance",
    "dependency_stability",
    "cascade",
    "typed_repair",
)

# DOC GAP: the store's capacity. Steps name record ids 0..63 and
# transaction ids 0..255 (docs/replay.md, the trace format; the model's limits), but no
# document says what happens past them. As the model does: a 65th record
# (staged, or made by an executed tool call) and a 257th transaction are
# refused; a blocked call, which makes no record, is still answered.
MAX_RECORDS = 64
MAX_TRANSACTIONS = 256

# Card, "Hyperparameters": both comparisons inclusive.
EVIDENCE_THRESHOLD = 60  # confidence >= 0.60
AUTHORITY_BYPASS = 90  # authority >= 0.90 skips the confidence check
MISSING_SOURCE_AUTHORITY = 50  # card pitfall: a missing source counts 0.5

# DESIGN.md: the lifecycle moves allowed; anything else is an error.
MOVES = {
    "raw": {"tentative"},
    "tentative": {"validated", "quarantined", "revoked"},
    "validated": {"committed", "quarantined", "revoked"},
    "committed": {"action_safe", "superseded", "quarantined", "revoked"},
    "action_safe": {"superseded", "revoked"},
    "quarantined": {"tentative", "revoked"},
    "superseded": {"revoked"},
    "revoked": set(),
}


class Refused(Exception):
    """The protocol refuses an operation; the store is left unchanged."""


class BrokenMove(Exception):
    """A lifecycle move the table forbids: a bug in this file, never a
    refusal (DESIGN.md: "never silently ignored")."""


# ---------------------------------------------------------------- data


@dataclass
class Variant:
    """The paper-vs-code switches and the ablations (DESIGN.md, "Spec
    variants"); the defaults are the authors' code."""

    same_source_tie: str = "supersede"  # or "review" (the paper's tie rule)
    stale_check_empty_snapshot: str = "skip"  # or "apply"
    laundering_parents: str = "active"  # or "any"
    tool_basis: str = "active"  # or "snapshot" (the literal card)
    ablate: frozenset = frozenset()

    def has(self, mechanism: str) -> bool:
        return mechanism not in self.ablate


@dataclass
class Tool:
    name: str
    irreversible: bool


@dataclass
class Proposal:
    """A record as a stage step writes it out."""

    kind: str
    entity: str
    attribute: str
    value: str
    source: str | None
    authority: int
    confidence: int
    scope: str
    derived_from: tuple
    valid_from: int | None
    valid_to: int | None
    owner: int | None


@dataclass
class Record:
    id: int
    kind: str
    entity: str
    attribute: str
    value: str
    source: str | None
    authority: int
    confidence: int
    owner: int
    scope: str
    derived_from: tuple
    valid_from: int | None
    valid_to: int | None
    state: str = "raw"
    reason: str | None = None
    tool: str | None = None


@dataclass
class Transaction:
    id: int
    agent: int
    tier: str
    snapshot: frozenset
    staged: list = field(default_factory=list)
    status: str = "open"  # "open", "committed" (closed) or "aborted"


# ---------------------------------------------------------------- outcomes
# Plain dicts in the shapes docs/driver-protocol.md names, so driver.py
# only adds the store.


def _verdict(rid, result, reason=None, superseded=(), admission=None):
    return {
        "id": rid,
        "result": result,
        "reason": reason,
        "superseded": sorted(superseded),
        "admission": admission,
    }


# ---------------------------------------------------------------- the store


class Store:
    """One MemTX store under one configuration: the records, the
    transactions, the revocation registry and the rollback log."""

    def __init__(self, tools, clock, variant: Variant):
        self.tools = {t.name: t for t in tools}
        self.clock = clock
        self.variant = variant
        self.records: list[Record] = []
        self.txs: list[Transaction] = []
        # DESIGN.md: every retracted record and every descendant a cascade
        # reached, views included; not records a commit check quarantined.
        self.registry: set[int] = set()
        self.log: list[dict] = []

    # ------------------------------------------------------------ helpers

    def _move(self, rec: Record, to: str) -> None:
        if to not in MOVES[rec.state]:
            raise BrokenMove(f"r{rec.id}: {rec.state} -> {to} is not a lifecycle move")
        rec.state = to

    def _tx(self, tx: int) -> Transaction:
        if not 0 <= tx < len(self.txs):
            raise Refused(f"unknown transaction t{tx}")
        return self.txs[tx]

    def _record(self, rid: int) -> Record:
        if not 0 <= rid < len(self.records):
            raise Refused(f"unknown record r{rid}")
        return self.records[rid]

    def _open_tx(self, tx: int, doing: str) -> Transaction:
        t = self._tx(tx)
        if t.status != "open":
            raise Refused(f"cannot {doing} t{tx}: it is {t.status}")
        return t

    def _ancestors(self, rec: Record) -> set[int]:
        """Transitive ancestors, recomputed from derived_from."""
        seen: set[int] = set()
        todo = list(rec.derived_from)
        while todo:
            rid = todo.pop()
            if rid not in seen:
                seen.add(rid)
                todo.extend(self.records[rid].derived_from)
        return seen

    def _descendants(self, root: int) -> list[int]:
        """Transitive descendants in id order. A record names only
        existing records as parents, so id order is a topological order."""
        reached = {root}
        out = []
        for rec in self.records[root + 1 :]:
            if any(p in reached for p in rec.derived_from):
                reached.add(rec.id)
                out.append(rec.id)
        return out

    def _authority(self, rec: Record) -> int:
        # Card pitfall: a missing source is treated as authority 0.5,
        # whatever authority the writer claims.
        return MISSING_SOURCE_AUTHORITY if rec.source is None else rec.authority

    def _visible(self, tier: str) -> frozenset:
        """DESIGN.md, visibility at open by risk tier."""
        settled = {"committed", "action_safe"}
        if tier in ("low", "medium"):
            ids = [r.id for r in self.records if r.state in settled]
        elif tier == "high":
            ids = [
                r.id
                for r in self.records
                if r.state in settled
                and all(self.records[a].state in settled for a in self._ancestors(r))
            ]
        else:  # external_action: action-safe read
            ids = [r.id for r in self.records if r.state == "action_safe"]
        return frozenset(ids)

    def _sees(self, t: Transaction, rid: int) -> bool:
        """A transaction sees its snapshot and what it staged itself."""
        return rid in t.snapshot or rid in t.staged

    # ------------------------------------------------------------ open

    def open(self, agent: int, tier: str) -> dict:
        if len(self.txs) >= MAX_TRANSACTIONS:
            raise Refused(f"the store already holds {MAX_TRANSACTIONS} transactions")
        t = Transaction(len(self.txs), agent, tier, self._visible(tier))
        self.txs.append(t)
        return {"tx": t.id, "snapshot": sorted(t.snapshot)}

    # ------------------------------------------------------------ stage

    def stage(self, tx: int, p: Proposal) -> dict:
        t = self._open_tx(tx, "stage into")
        if p.kind == "tool_action":
            # DESIGN.md: only an executed tool call creates a tool action.
            raise Refused("a tool_action record is never staged")
        if len(self.records) >= MAX_RECORDS:
            raise Refused(f"the store is full ({MAX_RECORDS} records)")
        for parent in p.derived_from:
            # DESIGN.md: a staged record's parents need only exist; commit,
            # not staging, judges them.
            self._record(parent)
        rec = Record(
            id=len(self.records),
            kind=p.kind,
            entity=p.entity,
            attribute=p.attribute,
            value=p.value,
            source=p.source,
            authority=p.authority,
            confidence=p.confidence,
            owner=t.agent if p.owner is None else p.owner,
            scope=p.scope,
            derived_from=tuple(p.derived_from),
            valid_from=p.valid_from,
            valid_to=p.valid_to,
        )
        self._move(rec, "tentative")
        self.records.append(rec)
        t.staged.append(rec.id)
        return {"record": rec.id}

    # ------------------------------------------------------------ commit

    def commit(self, tx: int) -> dict:
        t = self._open_tx(tx, "commit")
        verdicts = []
        calls = 0
        # Card pitfall "staging order matters": one at a time, in id
        # order; each commit is an active belief for the records after it.
        for rid in sorted(t.staged):
            rec = self.records[rid]
            # DESIGN.md: a record a cascade already revoked, or a view it
            # already held back, is skipped (no reason, no verifier call).
            if rec.state == "revoked":
                verdicts.append(_verdict(rid, "revoked"))
                continue
            if rec.state == "quarantined":
                verdicts.append(_verdict(rid, "quarantined"))
                continue
            verdict, reached_check_3 = self._judge(t, rec)
            calls += reached_check_3
            verdicts.append(verdict)
        t.status = "committed"
        passed = sum(v["result"] in ("committed", "action_safe") for v in verdicts)
        if passed == len(verdicts):
            status = "committed"  # an empty commit too
        elif passed:
            status = "partial"
        else:
            status = "aborted"
        return {"status": status, "records": verdicts, "verifier_calls": calls}

    def _quarantine(self, rec: Record, reason: str) -> dict:
        self._move(rec, "quarantined")
        rec.reason = reason
        return _verdict(rec.id, "quarantined", reason)

    def _judge(self, t: Transaction, rec: Record):
        """The four ordered checks for one staged record: (verdict, 1 if
        it reached check 3 else 0)."""
        v = self.variant
        # Check 1, evidence: confidence >= 0.6 unless authority >= 0.9.
        if v.has("evidence"):
            if rec.confidence < EVIDENCE_THRESHOLD and self._authority(rec) < AUTHORITY_BYPASS:
                return self._quarantine(rec, "low_evidence"), 0
        # Check 2, validity: only when the configuration sets a clock;
        # windows are inclusive, an absent bound is open.
        if v.has("validity") and self.clock is not None:
            if (rec.valid_from is not None and self.clock < rec.valid_from) or (
                rec.valid_to is not None and self.clock > rec.valid_to
            ):
                return self._quarantine(rec, "outside_validity"), 0
        # Check 3, semantic conflict (one verifier call).
        verdict, rivals, admission = self._conflict(t, rec)
        if verdict in ("abort", "ask_user"):
            return self._quarantine(rec, admission), 1
        superseded = []
        if verdict == "supersede_old":
            # DESIGN.md: every rival whose value differs is superseded,
            # and (as in the card's pseudocode) before check 4.
            for rival in rivals:
                if rival.value != rec.value:
                    self._move(rival, "superseded")
                    superseded.append(rival.id)
        # Check 4, dependency stability: no revoked transitive ancestor.
        # "Revoked" is the registry (card pitfall: the dependency checks
        # consult only revoked identifiers).
        if v.has("dependency_stability") and self._ancestors(rec) & self.registry:
            # The verdict still says how check 3 admitted the record and
            # whom it superseded (docs/driver-protocol.md, VERDICT).
            out = self._quarantine(rec, "unstable_dependency")
            out["superseded"] = sorted(superseded)
            out["admission"] = admission
            return out, 1
        # Promote: validated, committed, and action_safe at external_action.
        self._move(rec, "validated")
        self._move(rec, "committed")
        result = "committed"
        if t.tier == "external_action":
            self._move(rec, "action_safe")
            result = "action_safe"
        rec.reason = None
        return _verdict(rec.id, result, None, superseded, admission), 1

    def _conflict(self, t: Transaction, cand: Record):
        """Check 3: ("commit"|"abort"|"ask_user"|"supersede_old", the
        overlapping rivals, the admission or the quarantine reason)."""
        v = self.variant
        for parent in cand.derived_from:
            if parent in self.registry:
                return "abort", [], "revoked_parent"
        if v.has("permission_inheritance"):
            for pid in cand.derived_from:
                parent = self.records[pid]
                if v.laundering_parents == "active" and parent.state not in ACTIVE:
                    continue  # card "Paper vs code": the code reads active parents only
                if parent.scope == "private" and cand.scope != "private":
                    return "abort", [], "permission_laundering"
        if not v.has("conflict"):
            # Ablation of the same-slot rules: no rival is ever looked at.
            return "commit", [], None
        # DOC GAP (and a disagreement): DESIGN.md says rivals are "active
        # records of any kind" on the slot; the model leaves tool actions
        # out (src/protocol/conflict.rs, read to settle it: "a tool action
        # carries no belief slot of its own"), which matters because a
        # tool action's entity and attribute are its tool's name. Follows
        # the model.
        same_slot = [
            r
            for r in self.records
            if r.id != cand.id
            and r.state in ACTIVE
            and r.kind != "tool_action"
            and r.entity == cand.entity
            and r.attribute == cand.attribute
        ]
        rivals = [r for r in same_slot if _overlap(r, cand)]
        if not rivals:
            return "commit", [], ("coexisting_windows" if same_slot else "no_rival")
        # DESIGN.md: rivals in id order, and the first one decides.
        rival = rivals[0]
        if rival.value == cand.value:
            return "commit", rivals, "same_value"
        stale_applies = bool(t.snapshot) or v.stale_check_empty_snapshot == "apply"
        if stale_applies and rival.id not in t.snapshot:
            return "abort", rivals, "stale_write"
        mine, theirs = self._authority(cand), self._authority(rival)
        if mine > theirs:
            return "supersede_old", rivals, "superseded_by_authority"
        if mine < theirs:
            return "abort", rivals, "lower_authority"
        if cand.source == rival.source and v.same_source_tie == "supersede":
            return "supersede_old", rivals, "superseded_by_same_source"
        return "ask_user", rivals, "needs_review"

    # ------------------------------------------------------------ retraction

    def abort(self, tx: int) -> dict:
        t = self._open_tx(tx, "abort")
        t.status = "aborted"
        # DESIGN.md: abort retracts every record the transaction staged.
        # DOC GAP: a staged record a cascade already revoked is no root
        # (nothing left to retract; settled by the comparison with the
        # model, whose roots leave it out).
        return self._retract(sorted(r for r in t.staged if self.records[r].state != "revoked"))

    def revoke(self, rid: int) -> dict:
        rec = self._record(rid)
        if rec.state not in ("committed", "action_safe"):
            raise Refused(f"cannot revoke r{rid}: it is {rec.state}, not committed or action_safe")
        return self._retract([rid])

    def _compensate_or_leak(self, rec: Record) -> str:
        tool = self.tools.get(rec.tool)
        return "leaked" if tool is not None and tool.irreversible else "compensated"

    def _retract(self, roots: list[int]) -> dict:
        """The one repair routine (card §3.4): each root is revoked, then
        every transitive descendant is repaired by type."""
        repairs = []

        def repair(rid: int, how: str, root: bool) -> None:
            repairs.append({"id": rid, "repair": how})
            self.log.append({"record": rid, "repair": how, "root": root})

        # DOC GAP: DESIGN.md says abort retracts every staged record, "each
        # is revoked and its descendants repaired", but not in what order
        # when one root descends from another. Settled by the comparison
        # with the model: every root is revoked (and logged) first, then
        # the descendants of all roots are repaired, in id order, so a
        # root never gets a descendant's repair.
        for rid in roots:
            rec = self.records[rid]
            self.registry.add(rid)
            if rec.state != "revoked":
                # DESIGN.md: a retracted record itself ends revoked,
                # whatever its type; a tool action is also logged.
                how = self._compensate_or_leak(rec) if rec.kind == "tool_action" else "revoked"
                self._move(rec, "revoked")
                repair(rid, how, True)
        if not self.variant.has("cascade"):
            return {"roots": list(roots), "repairs": repairs}
        reached = sorted({d for rid in roots for d in self._descendants(rid)})
        for did in reached:
            node = self.records[did]
            self.registry.add(did)
            if node.state == "revoked":
                continue
            typed = self.variant.has("typed_repair")
            if typed and node.kind == "tool_action":
                how = self._compensate_or_leak(node)
                self._move(node, "revoked")
            elif typed and node.kind in VIEWS:
                if node.state == "quarantined":
                    continue  # already held back: left as it is
                if "quarantined" in MOVES[node.state]:
                    # Held back by the cascade now: a reason a commit
                    # check once gave a revalidated view goes, so a
                    # rebuild can take it back (docs/readings.md,
                    # "Rebuild").
                    self._move(node, "quarantined")
                    node.reason = None
                    how = "quarantined"
                else:
                    # Card pitfall: quarantine is not allowed from
                    # action_safe (or superseded): revoked instead.
                    self._move(node, "revoked")
                    how = "revoked"
            else:
                self._move(node, "revoked")
                how = "revoked"
            repair(did, how, False)
        return {"roots": list(roots), "repairs": repairs}

    # ------------------------------------------------------------ gate

    def tool_call(self, tx: int, tool_name: str, basis: list[int]) -> dict:
        t = self._tx(tx)
        if t.status == "aborted":
            # DESIGN.md: after abort a transaction may do nothing.
            raise Refused(f"t{tx} is aborted: it may make no tool call")
        tool = self.tools.get(tool_name)
        if tool is None:
            raise Refused(f"unknown tool {tool_name!r}")
        for rid in basis:
            rec = self._record(rid)
            if self.variant.tool_basis == "active":
                if not self._sees(t, rid) or rec.state not in ACTIVE:
                    raise Refused(f"basis r{rid} is not visible to t{tx} and active")
            elif not self._sees(t, rid):
                raise Refused(f"basis r{rid} is not in t{tx}'s snapshot or staging")
        allowed, reason, in_snapshot = True, None, []
        if tool.irreversible and self.variant.has("gate"):
            tentative = [r.id for r in self.records if r.state == "tentative"]
            in_snapshot = [rid for rid in tentative if rid in t.snapshot]
            if any(rid not in t.snapshot for rid in tentative):
                allowed, reason = False, "tentative_in_flight"
            elif t.tier == "external_action" and not any(
                self.records[rid].state == "action_safe" for rid in t.snapshot
            ):
                allowed, reason = False, "no_action_safe_support"
        made = None
        if allowed and len(self.records) >= MAX_RECORDS:
            raise Refused(f"the store is full ({MAX_RECORDS} records): the call cannot be recorded")
        if allowed:
            # DESIGN.md: an executed call creates a committed tool_action
            # record derived from its basis. DOC GAP: neither document
            # says what a tool action's entity, attribute, value, source,
            # authority, confidence and scope are. Taken from the model's
            # driver answers: the tool's name for the four strings,
            # authority and confidence 1.0, scope shared.
            rec = Record(
                id=len(self.records),
                kind="tool_action",
                entity=tool.name,
                attribute=tool.name,
                value=tool.name,
                source=tool.name,
                authority=100,
                confidence=100,
                owner=t.agent,
                scope="shared",
                derived_from=tuple(sorted(basis)),
                valid_from=None,
                valid_to=None,
                state="committed",
                tool=tool.name,
            )
            self.records.append(rec)
            made = rec.id
        return {"allowed": allowed, "reason": reason, "record": made, "in_snapshot": in_snapshot}

    # ------------------------------------------------------------ revalidation

    def revalidate(self, tx: int, rid: int) -> dict:
        # DOC GAP: DESIGN.md calls revalidation "a model switch"; the
        # switch (CONFIG `revalidate`) only decides whether the model
        # offers the operation. The protocol takes it whatever the switch
        # says, as the model's driver does (docs/driver-protocol.md lists
        # what a driver reads from CONFIG, and `revalidate` is not in it).
        t = self._open_tx(tx, "revalidate into")
        rec = self._record(rid)
        if rec.state != "quarantined":
            raise Refused(f"cannot revalidate r{rid}: it is {rec.state}, not quarantined")
        for other in self.txs:
            if other.status == "open" and rid in other.staged and other is not t:
                raise Refused(f"r{rid} is still staged by open t{other.id}")
        for other in self.txs:
            if rid in other.staged:
                other.staged.remove(rid)
        self._move(rec, "tentative")
        t.staged.append(rid)
        # The reason a commit check gave stays until a commit judges it.
        return {"revalidated": rid, "tx": tx, "was": rec.reason}

    # ------------------------------------------------------------ rebuild

    def rebuild(self, tx: int, rid: int) -> dict:
        """Card §3.4: a view a cascade held back is rebuilt from its
        surviving sources (docs/readings.md, "Rebuild"): its parents that
        are not revoked stay, it is tentative again in tx's staging, and
        it no longer descends from the retraction (it stays in the
        registry, which only grows)."""
        t = self._open_tx(tx, "rebuild into")
        rec = self._record(rid)
        if rec.kind not in VIEWS:
            raise Refused(f"cannot rebuild r{rid}: a {rec.kind} is not a view")
        if rec.state != "quarantined":
            raise Refused(f"cannot rebuild r{rid}: it is {rec.state}, not quarantined")
        if rec.reason is not None:
            raise Refused(f"cannot rebuild r{rid}: a commit check quarantined it ({rec.reason})")
        for other in self.txs:
            if other.status == "open" and rid in other.staged and other is not t:
                raise Refused(f"r{rid} is still staged by open t{other.id}")
        kept = tuple(p for p in rec.derived_from if self.records[p].state != "revoked")
        if not kept:
            raise Refused(f"cannot rebuild r{rid}: every source is revoked")
        dropped = [p for p in rec.derived_from if p not in kept]
        rec.derived_from = kept
        for other in self.txs:
            if rid in other.staged:
                other.staged.remove(rid)
        self._move(rec, "tentative")
        t.staged.append(rid)
        return {"rebuilt": rid, "tx": tx, "dropped": dropped}


def _overlap(a: Record, b: Record) -> bool:
    """Inclusive windows, an absent bound open."""
    lo_ok = a.valid_from is None or b.valid_to is None or a.valid_from <= b.valid_to
    hi_ok = b.valid_from is None or a.valid_to is None or b.valid_from <= a.valid_to
    return lo_ok and hi_ok
