#!/usr/bin/env python3
"""Build the offline-demo recordings of Bigdata.com Research Agent / Workflows SSE streams.

Usage:  python3 assets/gen/make_recordings.py      (from the repository root, or from anywhere)

The content (plans, reasoning, tool calls, sources, answers) lives in the scenario modules next
to this file (`scen_earnings.py`, `scen_sector.py`).  This file holds the machinery: a small
recorder that turns those readable definitions into wire events, splits text into token-like
chunks, paces the frames, computes citation offsets from inline markers and checks the result.

Recording format (parsed by the Rust demo server and replay), one frame per event:

    : delay=MS
    data: {compact single-line JSON}
    <blank line>

`: delay=MS` is an SSE comment holding the pause in milliseconds before the frame is sent,
relative to the previous frame.  The file is the frames concatenated; it ends with a blank line.

Citation markers inside an answer:  ⟦src:ALIAS⟧cited text⟦/⟧  (one reference per alias; several
aliases may be comma separated) and ⟦tool:TOOL_ALIAS⟧cited text⟦/⟧ (tool-level reference, source
null).  Appending ";action_audits_id" to the marker head spells the audit key the older way.
Offsets are Python string indices (Unicode code points) into the whole concatenated answer.

Deterministic: every random choice comes from random.Random seeded with the recording name.
Python standard library only.
"""
import hashlib
import json
import os
import random
import re
import sys
import zlib

sys.dont_write_bytecode = True  # keep assets/gen free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT_DIR = os.path.join(ROOT, "assets", "recordings", "bigdata")

STATUS = {"N": "NOT_STARTED", "I": "IN_PROGRESS", "C": "COMPLETED", "S": "SKIPPED", "F": "FAILED"}
MARKER_RE = re.compile(r"⟦(src|tool):([^⟧]+)⟧(.*?)⟦/⟧", re.S)
WORD_RE = re.compile(r"\s*\S+")


# --------------------------------------------------------------------------- source documents

def _hex(seed, n):
    return hashlib.sha1(seed.encode("utf-8")).hexdigest()[:n].upper()


def bigdata(alias, hd, src_name, ts, chunks, url=None, rank=1, name_key="src_name"):
    """A Bigdata.com platform document (search result).  chunks: [(cnum, text, relevance, sentiment)]."""
    doc = {"type": "BIGDATA", "id": _hex("doc:" + alias, 32), "hd": hd, name_key: src_name,
           "src_key": _hex("src:" + src_name, 6), "source_rank": rank, "ts": ts}
    if url:
        doc["url"] = url
    doc["chunks"] = [{"cnum": c, "text": t, "relevance": r, "sentiment": s} for c, t, r, s in chunks]
    return alias, doc


def external(alias, hd, ts, text, relevance, sentiment, publisher, url):
    """A web result (search result from outside the Bigdata.com content platform)."""
    return alias, {"type": "EXTERNAL", "id": "ext-" + _hex("ext:" + alias, 12).lower(), "hd": hd, "ts": ts,
                   "text": text, "relevance": relevance, "sentiment": sentiment,
                   "action": {"name": publisher, "url": url, "ts": ts}}


def source_library(*pairs):
    lib = {}
    for alias, doc in pairs:
        assert alias not in lib, "duplicate source alias " + alias
        lib[alias] = doc
    return lib


# --------------------------------------------------------------------------- text helpers

def chunk_text(text, rng, sizes, midword_p):
    """Split text into token-like chunks of `sizes` words (with leading whitespace), sometimes
    cutting a word in two.  ''.join(result) == text, always."""
    words = [m.group(0) for m in WORD_RE.finditer(text)]
    tail = text[len("".join(words)):]
    chunks, carry, i = [], "", 0
    while i < len(words):
        n = rng.choice(sizes)
        piece = carry + "".join(words[i:i + n])
        carry = ""
        i += n
        if i < len(words) and rng.random() < midword_p:
            w = words[i]
            lead = len(w) - len(w.lstrip())
            alpha = len(re.match(r"[^\W\d_]*", w[lead:]).group(0))  # letters at the word's start
            if alpha >= 6:
                cut = lead + rng.randint(2, alpha - 2)
                piece += w[:cut]
                carry = w[cut:]
                i += 1
        chunks.append(piece)
    if carry:
        chunks.append(carry)
    if tail:
        chunks[-1] += tail
    assert "".join(chunks) == text
    return chunks


def parse_markers(marked):
    """Strip ⟦…⟧ markers.  Returns (clean_text, [(start, end, kind, alias, key, span)])."""
    clean, refs, pos = [], [], 0
    n = 0  # length of clean text so far, in code points
    for m in MARKER_RE.finditer(marked):
        before = marked[pos:m.start()]
        clean.append(before)
        n += len(before)
        kind, head, span = m.group(1), m.group(2), m.group(3)
        assert "⟦" not in span and "⟧" not in span, "nested marker near: " + span[:40]
        key = "audit_id"
        if ";" in head:
            head, opt = head.split(";", 1)
            assert opt == "action_audits_id", opt
            key = opt
        for alias in head.split(","):
            refs.append((n, n + len(span), kind, alias.strip(), key, span))
        clean.append(span)
        n += len(span)
        pos = m.end()
    clean.append(marked[pos:])
    text = "".join(clean)
    assert "⟦" not in text and "⟧" not in text, "unbalanced marker"
    return text, refs


def count_words(text):
    return sum(1 for t in text.split() if any(ch.isalnum() for ch in t))


def compact(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


# --------------------------------------------------------------------------- the recorder

class Recorder:
    """Accumulates (delay_ms, event) frames for one recording."""

    def __init__(self, name, sources, chat_id=None, request_id=None, execution_id=None):
        self.name = name
        self.rng = random.Random(zlib.crc32(name.encode("utf-8")))
        self.sources = sources
        self.chat_id, self.request_id, self.execution_id = chat_id, request_id, execution_id
        self.frames = []
        self.role = "assistant"
        self.traces = {}        # tool alias -> (tool_id, tool_name)
        self.doc_audit = {}     # source alias -> tool_id of the first search that returned it
        self.plan_title, self.plan_steps = None, []
        self.think_n, self.msg_n = 0, 0
        self.after_plan = False
        self.expect = {}        # filled by answer(): clean answer and intended spans, for checks
        self.charts = []        # (tool alias, CHART message, the answer text it illustrates)

    # -- low level
    def _delay(self, lo, hi):
        return self.rng.randint(lo, hi)

    def emit(self, msg, delay, message_id=None):
        if self.after_plan:  # the pause after a plan update, before the next event
            delay = max(delay, self._delay(300, 800))
            self.after_plan = False
        if not self.frames:
            delay = self._delay(350, 650)  # time to first event
        if message_id is None:
            self.msg_n += 1
            message_id = "msg-%03d" % self.msg_n
        body = {"type": msg.pop("type"), "message_id": message_id, "role": self.role}
        body.update(msg)
        if self.chat_id is not None:
            event = {"chat_id": self.chat_id, "message": body}
        else:
            event = {"request_id": self.request_id, "execution_id": self.execution_id, "delta": body}
        self.frames.append((delay, event))

    # -- event builders
    def plan(self, title=None, steps=None, statuses=None):
        """First call: title + step descriptions.  Later calls: a status string, one letter per
        step (N, I, C, S, F).  The whole plan is re-sent every time."""
        if title is not None:
            self.plan_title, self.plan_steps = title, list(steps)
            statuses = statuses or "N" * len(steps)
        assert len(statuses) == len(self.plan_steps)
        plan = {"title": self.plan_title,
                "steps": [{"description": d, "status": STATUS[s]} for d, s in zip(self.plan_steps, statuses)]}
        self.emit({"type": "PLANNING", "plan": plan}, self._delay(120, 320), message_id="plan-1")
        self.after_plan = True

    def think(self, text, first_delay=(180, 450)):
        self.think_n += 1
        mid = ("sa-think-%d" if self.role != "assistant" else "think-%d") % self.think_n
        for i, c in enumerate(chunk_text(text, self.rng, [3, 4, 4, 5, 5, 6, 7, 8, 9], 0.18)):
            d = self._delay(*first_delay) if i == 0 else self._delay(30, 80)
            self.emit({"type": "THINKING", "content": c}, d, message_id=mid)

    def _action(self, tool_name, args):
        self.emit({"type": "ACTION", "tool_name": tool_name, "tool_arguments": args}, self._delay(150, 400))

    def tool_id(self, alias):
        return "audit-" + _hex(self.name + ":" + alias, 8).lower()

    def search(self, alias, query, results, args=None, filters=None, camel=False):
        """ACTION search + AUDIT SearchAuditV1 returning the given source aliases."""
        tool_id = self.tool_id(alias)
        self._action("search", dict({"query": query}, **(args or {})))
        q = {"text": query}
        if filters:
            q["filters"] = filters
        trace = {"audit_type": "SearchAuditV1", "tool_id": tool_id, "query": q,
                 "results": [{"type": "CQS", "values": [self.sources[a] for a in results]}]}
        self._audit(alias, "search", camelize(trace) if camel else trace, self._delay(700, 1500))
        for a in results:
            self.doc_audit.setdefault(a, tool_id)

    def tool(self, alias, tool_name, args, title, content, camel=False):
        """ACTION for a non-search tool + AUDIT MarkdownAuditV1."""
        self._action(tool_name, args)
        trace = {"audit_type": "MarkdownAuditV1", "tool_id": self.tool_id(alias), "title": title,
                 "content": content}
        self._audit(alias, tool_name, camelize(trace) if camel else trace, self._delay(400, 1100))

    def _audit(self, alias, tool_name, trace, delay):
        tool_id = trace.get("tool_id", trace.get("toolId"))
        assert alias not in self.traces and tool_id not in [t for t, _ in self.traces.values()]
        self.traces[alias] = (tool_id, tool_name)
        self.emit({"type": "AUDIT", "audit_traces": [trace]}, delay)

    def failed_tool(self, tool_name, args, error):
        self._action(tool_name, args)
        self.emit({"type": "TOOL_ERROR", "tool_name": tool_name, "error": error}, 1500)

    def raw_audit(self, trace, delay=(150, 350)):
        self.emit({"type": "AUDIT", "audit_traces": [trace]}, self._delay(*delay))

    def retry(self, message):
        self.emit({"type": "LLM_RETRY", "message": message}, self._delay(600, 1000))

    def chart_tool(self, alias, task, code):
        """ACTION python_code_execution + AUDIT: the tool that draws charts.  Fixed delays (no
        random draw), so adding it leaves the rest of a recording's pacing as it was."""
        self.emit({"type": "ACTION", "tool_name": "python_code_execution",
                   "tool_arguments": {"task": task, "code": code}}, 420)
        trace = {"audit_type": "MarkdownAuditV1", "tool_id": self.tool_id(alias),
                 "title": "Python code execution: " + task, "content": "Generated charts from the reported figures."}
        self.traces[alias] = (trace["tool_id"], "python_code_execution")
        self.emit({"type": "AUDIT", "audit_traces": [trace]}, 1150)

    def chart(self, alias, chart_id, title, caption, chart_type, spec, data_points, span):
        """A CHART sent once the answer has streamed past `span` (text that occurs once in the
        answer: the chart's start/end and a tool-level reference from `alias` cover it)."""
        msg = {"type": "CHART", "chart_id": chart_id, "title": title, "caption": caption,
               "chart_type": chart_type, "data_points": data_points, "vega_lite_spec": spec}
        self.charts.append((alias, msg, span))

    def answer(self, marked, message_id="ans-1", batches=3):
        """Stream the answer in chunks, with GROUNDING batches: the first before the answer
        starts, the others as the streamed text reaches their first span.  Charts follow the
        chunk that completes their span."""
        text, spans = parse_markers(marked)
        charts = []
        for alias, msg, span in self.charts:
            assert text.count(span) == 1, "chart span must occur once: " + span[:40]
            start = text.index(span)
            msg = dict(msg, start=start, end=start + len(span))
            charts.append(msg)
            spans.append((start, start + len(span), "tool", alias, "audit_id", span))
        refs = []
        for start, end, kind, alias, key, span in spans:
            if kind == "src":
                audit_id, tool_name, source = self.doc_audit[alias], "search", self.sources[alias]
            else:
                audit_id, tool_name = self.traces[alias]
                source = None
            refs.append({"start": start, "end": end, "tool_name": tool_name, key: audit_id, "source": source})
        order = sorted(range(len(refs)), key=lambda i: (refs[i]["start"], refs[i]["end"], i))
        per = -(-len(order) // batches)
        groups = [[refs[i] for i in order[k:k + per]] for k in range(0, len(order), per)]
        self.expect = {"answer": text, "spans": [(s, e, sp) for s, e, _, _, _, sp in spans]}

        self.emit({"type": "GROUNDING", "references": groups[0]}, self._delay(80, 220))
        pending = groups[1:]
        streamed = 0
        chunks = chunk_text(text, self.rng, [1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8], 0.12)
        for i, c in enumerate(chunks):
            self.emit({"type": "ANSWER", "content": c},
                      self._delay(220, 420) if i == 0 else self._delay(20, 60), message_id=message_id)
            streamed += len(c)
            while pending and streamed >= pending[0][0]["start"]:
                self.emit({"type": "GROUNDING", "references": pending.pop(0)}, self._delay(60, 180))
            while charts and streamed >= charts[0]["end"]:
                self.emit(charts.pop(0), 90, message_id="chart-%d" % (len(self.charts) - len(charts)))
        assert not pending and not charts

    def structured(self, schema, content):
        self.emit({"type": "STRUCTURED_OUTPUT", "json_schema": schema, "content": content},
                  self._delay(150, 320), message_id="so-1")

    def complete(self, consumption, checkpoint_id=None):
        msg = {"type": "COMPLETE"}
        if checkpoint_id:
            msg["checkpoint_id"] = checkpoint_id
        msg["consumption"] = [dict({"type": t}, **dict(zip(("input_tokens", "output_tokens", "cached_tokens"), v)))
                              for t, v in consumption]
        self.emit(msg, self._delay(120, 260), message_id="complete")

    # -- output
    def render(self):
        out = []
        for delay, event in self.frames:
            line = compact(event)
            assert "\n" not in line and "\r" not in line and "\u2028" not in line
            out.append(": delay=%d\ndata: %s\n\n" % (delay, line))
        return "".join(out)


def camelize(trace):
    """The newer-API spelling of trace keys (the client must accept both)."""
    return {{"audit_type": "auditType", "tool_id": "toolId"}.get(k, k): v for k, v in trace.items()}


# --------------------------------------------------------------------------- checks

def field(d, *names):
    for n in names:
        if n in d:
            return d[n]
    return None


def parse_recording(text):
    """Parse the file format strictly (as the Rust side does) and return [(delay, event)]."""
    assert text.endswith("\n\n") and not text.startswith("\n")
    frames = []
    for block in text[:-2].split("\n\n"):
        lines = block.split("\n")
        assert len(lines) == 2, block[:80]
        m = re.fullmatch(r": delay=(\d+)", lines[0])
        assert m and lines[1].startswith("data: {"), block[:80]
        frames.append((int(m.group(1)), json.loads(lines[1][6:])))
    return frames


def answer_so_far(msgs, until):
    """The answer streamed before message `until`."""
    text = ""
    for m in msgs:
        if m is until:
            break
        if m["type"] == "ANSWER":
            text += m["content"]
    return text


def check(name, rec, kind, text):
    frames = parse_recording(text)
    msgs = [f[1]["delta" if kind == "workflow" else "message"] for f in frames]
    ids = {f[1].get("chat_id") or f[1].get("execution_id") for f in frames}
    assert len(ids) == 1, ids
    answer = "".join(m["content"] for m in msgs if m["type"] == "ANSWER")
    assert answer == rec.expect["answer"]
    assert msgs[-1]["type"] == "COMPLETE" and [m["type"] for m in msgs].count("COMPLETE") == 1
    assert len({m["message_id"] for m in msgs if m["type"] == "ANSWER"}) == 1

    traces, seen_docs, refs = {}, {}, []
    for m in msgs:
        if m["type"] == "AUDIT":
            for t in m["audit_traces"]:
                traces[field(t, "tool_id", "toolId")] = t
                for group in t.get("results", []):
                    for doc in group["values"]:
                        assert seen_docs.setdefault(doc["id"], doc) == doc, "source %s differs" % doc["id"]
        elif m["type"] == "GROUNDING":
            for r in m["references"]:
                audit_id = field(r, "audit_id", "action_audits_id")
                assert audit_id in traces, "reference to an audit not yet seen: %s" % audit_id
                if r["source"] is not None:
                    doc = r["source"]
                    assert seen_docs.get(doc["id"]) == doc, "source %s differs" % doc["id"]
                    assert doc in traces[audit_id]["results"][0]["values"], "doc not in its trace"
                else:
                    assert field(traces[audit_id], "audit_type", "auditType") != "SearchAuditV1"
                refs.append(r)
        elif m["type"] == "PLANNING":
            assert 3 <= len(m["plan"]["steps"]) <= 6 and m["plan"]["title"]
        elif m["type"] == "CHART":
            assert 0 <= m["start"] < m["end"] <= len(answer)
            assert len(answer_so_far(msgs, m)) >= m["end"], "chart sent before its span"
            assert m["vega_lite_spec"]["data"]["values"], "chart without inline data"

    # every reference: valid offsets, and the span it was written for
    wanted = sorted(rec.expect["spans"])
    got = sorted((r["start"], r["end"], answer[r["start"]:r["end"]]) for r in refs)
    assert got == wanted, "reference spans differ from the markers"
    for r in refs:
        assert 0 <= r["start"] <= r["end"] <= len(answer)
        assert answer[r["start"]:r["end"]].strip() == answer[r["start"]:r["end"]], "span has outer spaces"
    first = min(r["start"] for r in refs)
    assert any(ord(c) > 0xFFFF for c in answer[:first]), "no astral-plane char before the first cited span"

    cited = {r["source"]["id"] for r in refs if r["source"]}
    tool_refs = [r for r in refs if r["source"] is None]
    actions = [m for m in msgs if m["type"] == "ACTION"]
    words = count_words(answer)
    duration = sum(f[0] for f in frames) / 1000.0
    if kind == "compare":
        # The comparison question's answer: shorter, fewer sources (it shares the screen with others).
        assert 150 <= words <= 400, words
        assert len(cited) >= 5, len(cited)
        assert 3 <= len(actions) <= 6, len(actions)
        assert 8 <= duration <= 30, duration
    elif kind == "research":
        assert 300 <= words <= 800, words
        assert len(cited) >= 8, len(cited)
        assert 4 <= len(actions) <= 8, len(actions)
        assert 15 <= duration <= 35, duration
    else:
        assert 150 <= words <= 300, words
        assert 8 <= duration <= 35, duration
    assert len(tool_refs) >= 2
    per_doc = {}
    for r in refs:
        if r["source"]:
            per_doc[r["source"]["id"]] = per_doc.get(r["source"]["id"], 0) + 1
    assert sum(1 for n in per_doc.values() if n > 1) >= 2, "too few sources cited more than once"
    return {"file": name, "frames": len(frames), "words": words, "answer_chars": len(answer),
            "answer_chunks": sum(m["type"] == "ANSWER" for m in msgs), "sources_cited": len(cited),
            "references": len(refs), "tool_level_refs": len(tool_refs), "tool_calls": len(actions),
            "grounding_events": sum(m["type"] == "GROUNDING" for m in msgs), "duration_s": duration}


# --------------------------------------------------------------------------- main

def main():
    import scen_earnings
    import scen_sector
    import scen_sodium

    builds = [
        ("earnings-deep-dive.sse", "research", scen_earnings.build_deep_dive),
        ("sector-comparison.sse", "research", scen_sector.build),
        ("follow-up.sse", "research", scen_earnings.build_follow_up),
        ("workflow-earnings-brief.sse", "workflow", scen_earnings.build_workflow),
        ("sodium-ion-research.sse", "compare", scen_sodium.build),
    ]
    os.makedirs(OUT_DIR, exist_ok=True)
    index = []
    for fname, kind, build in builds:
        rec, meta = build(Recorder)
        text = rec.render()
        summary = check(fname, rec, kind, text)
        with open(os.path.join(OUT_DIR, fname), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        index.append(dict({"file": fname, "kind": kind}, **meta))
        print("%-28s %3d frames  %3d words  %4d chars  %3d answer chunks  %2d sources  %2d refs "
              "(%d tool-level)  %d tool calls  %d GROUNDING  %.1f s"
              % (fname, summary["frames"], summary["words"], summary["answer_chars"], summary["answer_chunks"],
                 summary["sources_cited"], summary["references"], summary["tool_level_refs"],
                 summary["tool_calls"], summary["grounding_events"], summary["duration_s"]))
    with open(os.path.join(OUT_DIR, "index.json"), "w", encoding="utf-8", newline="\n") as f:
        f.write(json.dumps(index, ensure_ascii=False, indent=2) + "\n")
    print("wrote %d recordings and index.json to %s" % (len(builds), os.path.relpath(OUT_DIR, ROOT)))


if __name__ == "__main__":
    main()
