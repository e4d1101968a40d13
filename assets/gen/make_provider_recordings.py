#!/usr/bin/env python3
"""Build the offline-demo recordings of xAI Responses API and Zeta Alpha chat streams.

Usage:  python3 assets/gen/make_provider_recordings.py      (from anywhere)

Content lives in `scen_xai.py` and `scen_zeta.py`; this file turns it into wire events, paces the
frames, computes citation spans and checks the result before writing anything.

Recording format (the same as assets/recordings/bigdata/), one frame per SSE event:

    : delay=MS
    event: <type>
    id: <id>                (Zeta Alpha new_message only)
    data: <compact single-line JSON, or plain text for stream_status>
    <blank line>

xAI: `event: response.*` + `data: {"type": …, "sequence_number": n, …}`.  The answer carries inline links
`[[N]](url)`; every `url_citation` annotation's `start_index`/`end_index` are Python string indices
(Unicode code points) covering exactly that link.  Annotations arrive in a burst after the last
delta and again in `response.completed`.  Empty-span annotations (start = end = 0) and web search
results never cited are the "all citations" that have no place in the text.

Zeta Alpha: `event: new_message` whose data is the whole bot message so far.  While streaming the
content shows raw links `[[N]](url "title")`; the last message rewrites them into anchors and
carries the evidences (`document_hit_url`, `text_extract` with a <b> key sentence, `anchor_text`).

Deterministic: every random choice comes from random.Random seeded with the file name.
Python standard library only.  Don't run it with `python3 -O` (that disables the checks).
"""
import hashlib
import json
import os
import random
import re
import sys
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))

from make_recordings import chunk_text, compact, count_words  # noqa: E402
import scen_xai  # noqa: E402
import scen_zeta  # noqa: E402

CITE_RE = re.compile(r"⟦([^⟧]+)⟧")
ASTRAL = re.compile(r"[\U00010000-\U0010FFFF]")


def hex_id(seed, n):
    return hashlib.sha1(seed.encode("utf-8")).hexdigest()[:n]


def write(path, frames):
    """frames: [(delay_ms, event, id_or_None, data_str)]"""
    out = []
    for delay, event, sse_id, data in frames:
        assert "\n" not in data and "\r" not in data
        out.append(": delay=%d\n" % delay)
        out.append("event: %s\n" % event)
        if sse_id is not None:
            out.append("id: %s\n" % sse_id)
        out.append("data: %s\n\n" % data)
    text = "".join(out)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return text


def read_frames(text):
    """Parse a written recording back: [(delay, event, id, data)]."""
    frames = []
    for block in text.split("\n\n"):
        if not block:
            continue
        fields = {}
        for line in block.split("\n"):
            if line.startswith(": delay="):
                fields["delay"] = int(line[len(": delay="):])
            else:
                key, _, value = line.partition(": ")
                assert key in ("event", "id", "data"), line
                fields[key] = value
        frames.append((fields["delay"], fields["event"], fields.get("id"), fields["data"]))
    return frames


# =========================================================================== xAI

def xai_answer(marked, sources):
    """⟦a,b⟧ markers → inline links.  Returns (text, [(start, end, url, n)], {url: n})."""
    numbers, spans, out, pos, n = {}, [], [], 0, 0
    for m in CITE_RE.finditer(marked):
        piece = marked[pos:m.start()]
        out.append(piece)
        n += len(piece)
        for alias in m.group(1).split(","):
            url = sources[alias.strip()]
            number = numbers.setdefault(url, len(numbers) + 1)
            link = "[[%d]](%s)" % (number, url)
            spans.append((n, n + len(link), url, number))
            out.append(link)
            n += len(link)
        pos = m.end()
    out.append(marked[pos:])
    text = "".join(out)
    assert "⟦" not in text and "⟧" not in text
    return text, spans, numbers


class XaiRecorder:
    def __init__(self, scen):
        self.scen = scen
        self.rng = random.Random(zlib.crc32(scen["file"].encode("utf-8")))
        self.frames = []
        self.seq = 0
        self.output = []        # final output items, in output_index order
        self.search_urls = []   # every web search result URL
        self.tool_counts = {"web_search_calls": 0, "x_search_calls": 0}
        self.n = 0

    def delay(self, lo, hi):
        return self.rng.randint(lo, hi)

    def ev(self, kind, delay, **fields):
        data = {"type": kind, "sequence_number": self.seq}
        data.update(fields)
        self.seq += 1
        self.frames.append((delay, kind, None, compact(data)))

    def item_id(self, prefix):
        self.n += 1
        return "%s_%s" % (prefix, hex_id("%s:%s:%d" % (self.scen["file"], prefix, self.n), 24))

    def response(self, status, usage=None):
        s = self.scen
        return {"id": s["response_id"], "object": "response", "created_at": s["created_at"],
                "model": s["model"], "status": status,
                "previous_response_id": s.get("previous_response_id"),
                "tools": [{"type": "web_search"}, {"type": "x_search"}],
                "output": list(self.output) if status == "completed" else [],
                "usage": usage}

    def start(self):
        self.ev("response.created", self.delay(350, 650), response=self.response("in_progress"))
        self.ev("response.in_progress", self.delay(20, 60), response=self.response("in_progress"))

    def think(self, text):
        idx, rid = len(self.output), self.item_id("rs")
        self.ev("response.output_item.added", self.delay(150, 400), output_index=idx,
                item={"type": "reasoning", "id": rid, "summary": []})
        self.ev("response.reasoning_summary_part.added", self.delay(20, 60), item_id=rid,
                output_index=idx, summary_index=0, part={"type": "summary_text", "text": ""})
        for i, chunk in enumerate(chunk_text(text, self.rng, [2, 3, 3, 4, 5], 0.15)):
            self.ev("response.reasoning_summary_text.delta",
                    self.delay(150, 300) if i == 0 else self.delay(30, 80),
                    item_id=rid, output_index=idx, summary_index=0, delta=chunk)
        self.ev("response.reasoning_summary_text.done", self.delay(20, 50), item_id=rid,
                output_index=idx, summary_index=0, text=text)
        self.ev("response.reasoning_summary_part.done", self.delay(5, 20), item_id=rid,
                output_index=idx, summary_index=0, part={"type": "summary_text", "text": text})
        item = {"type": "reasoning", "id": rid, "summary": [{"type": "summary_text", "text": text}]}
        self.ev("response.output_item.done", self.delay(5, 20), output_index=idx, item=item)
        self.output.append(item)

    def web(self, query, aliases):
        idx, wid = len(self.output), self.item_id("ws")
        urls = [scen_xai.SOURCES[a] for a in aliases]
        self.search_urls += urls
        self.tool_counts["web_search_calls"] += 1
        self.ev("response.output_item.added", self.delay(200, 500), output_index=idx,
                item={"type": "web_search_call", "id": wid, "status": "in_progress"})
        self.ev("response.web_search_call.in_progress", self.delay(10, 40), item_id=wid, output_index=idx)
        self.ev("response.web_search_call.searching", self.delay(50, 150), item_id=wid, output_index=idx)
        self.ev("response.web_search_call.completed", self.delay(400, 1500), item_id=wid, output_index=idx)
        item = {"type": "web_search_call", "id": wid, "status": "completed",
                "action": {"type": "search", "query": query,
                           "sources": [{"type": "url", "url": u} for u in urls]}}
        self.ev("response.output_item.done", self.delay(10, 40), output_index=idx, item=item)
        self.output.append(item)

    def x_search(self, name, args):
        idx, cid = len(self.output), self.item_id("ctc")
        call_id = "call_" + hex_id(cid, 20)
        self.tool_counts["x_search_calls"] += 1
        text = compact(args)
        self.ev("response.output_item.added", self.delay(200, 500), output_index=idx,
                item={"type": "custom_tool_call", "id": cid, "call_id": call_id, "name": name,
                      "input": "", "status": "in_progress"})
        cut = [0, len(text) // 3, 2 * len(text) // 3, len(text)]
        for a, b in zip(cut, cut[1:]):
            self.ev("response.custom_tool_call_input.delta", self.delay(20, 60), item_id=cid,
                    output_index=idx, delta=text[a:b])
        self.ev("response.custom_tool_call_input.done", self.delay(10, 30), item_id=cid,
                output_index=idx, input=text)
        item = {"type": "custom_tool_call", "id": cid, "call_id": call_id, "name": name,
                "input": text, "status": "completed"}
        self.ev("response.output_item.done", self.delay(400, 1500), output_index=idx, item=item)
        self.output.append(item)

    def answer(self):
        s = self.scen
        text, spans, numbers = xai_answer(s["answer"], scen_xai.SOURCES)
        annotations = [{"type": "url_citation", "url": url, "start_index": a, "end_index": b,
                        "title": str(number)} for a, b, url, number in spans]
        next_n = len(numbers) + 1
        for alias in s["empty_spans"]:
            annotations.append({"type": "url_citation", "url": scen_xai.SOURCES[alias],
                                "start_index": 0, "end_index": 0, "title": str(next_n)})
            next_n += 1
        idx, mid = len(self.output), self.item_id("msg")
        self.ev("response.output_item.added", self.delay(250, 600), output_index=idx,
                item={"type": "message", "id": mid, "status": "in_progress", "role": "assistant",
                      "content": []})
        self.ev("response.content_part.added", self.delay(10, 30), item_id=mid, output_index=idx,
                content_index=0, part={"type": "output_text", "text": "", "annotations": []})
        for i, chunk in enumerate(chunk_text(text, self.rng, [1, 2, 2, 3, 3, 4], 0.2)):
            self.ev("response.output_text.delta", self.delay(120, 300) if i == 0 else self.delay(20, 60),
                    item_id=mid, output_index=idx, content_index=0, delta=chunk, logprobs=[])
        for i, annotation in enumerate(annotations):
            self.ev("response.output_text.annotation.added", self.delay(2, 12), item_id=mid,
                    output_index=idx, content_index=0, annotation_index=i, annotation=annotation)
        self.ev("response.output_text.done", self.delay(5, 20), item_id=mid, output_index=idx,
                content_index=0, text=text, logprobs=[])
        part = {"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}
        self.ev("response.content_part.done", self.delay(5, 20), item_id=mid, output_index=idx,
                content_index=0, part=part)
        item = {"type": "message", "id": mid, "status": "completed", "role": "assistant",
                "content": [part]}
        self.ev("response.output_item.done", self.delay(5, 20), output_index=idx, item=item)
        self.output.append(item)
        return text, spans, annotations

    def complete(self, spans, annotations):
        u = self.scen["usage"]
        cited = {url for _, _, url, _ in spans}
        everything = cited | set(self.search_urls) | {a["url"] for a in annotations}
        usage = {"input_tokens": u["input_tokens"],
                 "input_tokens_details": {"cached_tokens": u["cached_tokens"]},
                 "output_tokens": u["output_tokens"],
                 "output_tokens_details": {"reasoning_tokens": u["reasoning_tokens"]},
                 "total_tokens": u["input_tokens"] + u["output_tokens"],
                 "num_sources_used": len(everything),
                 "num_server_side_tools_used": sum(self.tool_counts.values()),
                 "server_side_tool_usage_details": dict(self.tool_counts)}
        self.ev("response.completed", self.delay(60, 200), response=self.response("completed", usage))


def build_xai(scen):
    rec = XaiRecorder(scen)
    rec.start()
    for step in scen["steps"]:
        if step[0] == "think":
            rec.think(step[1])
        elif step[0] == "web":
            rec.web(step[1], step[2])
        elif step[0] == "x":
            rec.x_search(step[1], step[2])
        else:
            raise AssertionError(step)
    text, spans, annotations = rec.answer()
    rec.complete(spans, annotations)
    return rec, text, spans, annotations


def check_xai(scen, rec, written):
    name = scen["file"]
    frames = read_frames(written)
    events = [json.loads(d) for _, _, _, d in frames]
    for (_, kind, _, _), event in zip(frames, events):
        assert event["type"] == kind, (name, kind)
    assert [e["sequence_number"] for e in events] == list(range(len(events))), name
    text = "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")
    streamed = [e["annotation"] for e in events if e["type"] == "response.output_text.annotation.added"]
    completed = events[-1]
    assert completed["type"] == "response.completed"
    final_parts = [c for item in completed["response"]["output"] if item["type"] == "message"
                   for c in item["content"]]
    assert len(final_parts) == 1 and final_parts[0]["text"] == text, name
    assert final_parts[0]["annotations"] == streamed, name + ": completed repeats the annotations"
    number_of = {}
    positioned, empty = [], []
    for a in streamed:
        start, end, url, title = a["start_index"], a["end_index"], a["url"], a["title"]
        if start == end == 0:
            empty.append(url)
            continue
        span = text[start:end]  # Python indices: code points
        assert span == "[[%s]](%s)" % (title, url), (name, span)
        assert span.startswith("[[") and span.endswith(")")
        assert number_of.setdefault(url, title) == title, (name, "same source keeps its number", url)
        positioned.append((start, end, url))
    assert [int(n) for n in dict.fromkeys(number_of.values())] == list(range(1, len(number_of) + 1)), \
        name + ": numbered by first appearance"
    assert positioned == sorted(positioned), name
    assert len(empty) == len(scen["empty_spans"]) and all(u not in number_of for u in empty), name
    # Repeated sources, consulted-but-uncited search results, cited web pages came from searches.
    counts = {}
    for _, _, url in positioned:
        counts[url] = counts.get(url, 0) + 1
    assert any(c >= 2 for c in counts.values()), name + ": a repeated source"
    searched = set()
    for e in events:
        item = e.get("item") or {}
        if e["type"] == "response.output_item.done" and item.get("type") == "web_search_call":
            searched |= {s["url"] for s in item["action"]["sources"]}
    uncited = searched - set(number_of)
    assert len(uncited) >= 1, name + ": consulted-but-uncited URLs"
    for url in number_of:
        assert url in searched or url.startswith("https://x.com/"), (name, "cited but never found", url)
    searches = [e for e in events if e["type"] == "response.output_item.done"
                and e["item"]["type"] in ("web_search_call", "custom_tool_call")]
    assert len(searches) >= 3, name + ": several searches"
    # Non-ASCII (with an astral emoji) before the first citation.
    first = positioned[0][0]
    assert ASTRAL.search(text[:first]), name + ": astral emoji before the first citation"
    assert len(text[:first].encode("utf-8")) > len(text[:first]), name
    plain = re.sub(r"\[\[\d+\]\]\([^)]*\)", "", text)
    words = count_words(plain)
    assert 250 <= words <= 500, (name, words)
    duration = sum(d for d, _, _, _ in frames) / 1000
    assert 8 <= duration <= 40, (name, duration)
    return {"words": words, "sources": len(number_of), "citations": len(positioned),
            "empty_spans": len(empty), "uncited_results": len(uncited), "events": len(events),
            "seconds": round(duration, 1)}


# =========================================================================== Zeta Alpha

def zeta_anchor(style, number, url):
    if style == "numbered":
        return "<sup>%d</sup>" % number
    if style == "hash":
        return "[%s]" % hex_id(url, 8)
    raise AssertionError(style)


def zeta_answer(scen):
    """Returns (final_text, raw_text, evidences, numbers)."""
    numbers, final, raw, pos = {}, [], [], 0
    marked = scen["answer"]
    for m in CITE_RE.finditer(marked):
        piece = marked[pos:m.start()]
        final.append(piece)
        raw.append(piece)
        for alias in m.group(1).split(","):
            url, title, _ = scen_zeta.DOCS[alias.strip()]
            n = numbers.setdefault(alias.strip(), len(numbers) + 1)
            final.append(zeta_anchor(scen["anchors"], n, url))
            raw.append(' [[%d]](%s "%s")' % (n, url, title))
        pos = m.end()
    final.append(marked[pos:])
    raw.append(marked[pos:])
    evidences = []
    for alias, n in numbers.items():
        url, _, extract = scen_zeta.DOCS[alias]
        evidences.append({"document_hit_url": url, "text_extract": extract,
                          "anchor_text": zeta_anchor(scen["anchors"], n, url)})
    return "".join(final), "".join(raw), evidences, numbers


class ZetaRecorder:
    def __init__(self, scen):
        self.scen = scen
        self.rng = random.Random(zlib.crc32(scen["file"].encode("utf-8")))
        self.frames = []
        self.index = 0
        self.tools = []

    def delay(self, lo, hi):
        return self.rng.randint(lo, hi)

    def status(self, text, delay):
        self.frames.append((delay, "stream_status", None, text))

    def message(self, content, delay, evidences=None):
        s = self.scen
        parts = [{"type": "tool", "tool": dict(t)} for t in self.tools]
        if content:
            parts.append({"type": "text", "text": content})
        data = {"sender": "bot", "content": content, "content_parts": parts,
                "evidences": evidences, "session_id": s["session_id"], "message_id": s["message_id"]}
        self.frames.append((delay, "new_message", "%s:%d" % (s["message_id"], self.index), compact(data)))
        self.index += 1

    def run_tools(self):
        for name, running, done in self.scen["tools"]:
            self.tools.append({"name": name, "status": "running", "display_text": running})
            self.message("", self.delay(200, 500))
            self.tools[-1] = {"name": name, "status": "completed", "display_text": done}
            self.message("", self.delay(600, 1800))

    def stream_answer(self, final, raw, evidences):
        chunks = chunk_text(raw, self.rng, [7, 9, 11, 13], 0.1)
        content = ""
        for i, chunk in enumerate(chunks):
            content += chunk
            self.message(content, self.delay(200, 500) if i == 0 else self.delay(150, 320))
        assert content == raw
        self.message(final, self.delay(150, 400), evidences=evidences)


def build_zeta(scen):
    rec = ZetaRecorder(scen)
    final, raw, evidences, numbers = zeta_answer(scen)
    rec.status("started", rec.delay(150, 350))
    rec.run_tools()
    rec.stream_answer(final, raw, evidences)
    rec.status("completed", rec.delay(30, 80))
    return rec, final, evidences


def check_zeta(scen, rec, written):
    name = scen["file"]
    frames = read_frames(written)
    messages = [json.loads(d) for _, kind, _, d in frames if kind == "new_message"]
    assert frames[0][1] == "stream_status" and frames[-1][1] == "stream_status", name
    for i, (_, kind, sse_id, _) in enumerate(f for f in frames if f[1] == "new_message"):
        assert sse_id == "%s:%d" % (scen["message_id"], i), name
    assert all(m["evidences"] is None for m in messages[:-1]), name + ": early messages have no evidences"
    final = messages[-1]
    content, evidences = final["content"], final["evidences"]
    previous = messages[-2]["content"]
    assert '[[1]](' in previous and '[[1]](' not in content, name + ": the last message rewrites links"
    assert all(m["session_id"] == scen["session_id"] for m in messages), name
    positions = []
    for ev in evidences:
        anchor = ev["anchor_text"]
        assert anchor and content.count(anchor) >= 1, (name, anchor)
        assert "<b>" in ev["text_extract"] and "</b>" in ev["text_extract"], name
        start = 0
        while True:
            at = content.find(anchor, start)
            if at < 0:
                break
            positions.append((at, at + len(anchor), ev["document_hit_url"]))
            start = at + len(anchor)
    positions.sort()
    for (a, b, _), (c, d, _) in zip(positions, positions[1:]):
        assert b <= c, (name, "anchors overlap")
    urls = [u for _, _, u in positions]
    assert any(urls.count(u) >= 2 for u in urls), name + ": a repeated source"
    assert any(ev["document_hit_url"].startswith("custom://") for ev in evidences), name
    assert any(ev["document_hit_url"].startswith("/") for ev in evidences), name
    assert ASTRAL.search(content[:positions[0][0]]), name + ": astral emoji before the first anchor"
    plain = content
    for ev in evidences:
        plain = plain.replace(ev["anchor_text"], "")
    words = count_words(plain)
    assert 250 <= words <= 500, (name, words)
    tools = [p for p in final["content_parts"] if p["type"] == "tool"]
    assert len(tools) >= 2 and all(p["tool"]["status"] == "completed" for p in tools), name
    duration = sum(d for d, _, _, _ in frames) / 1000
    assert 8 <= duration <= 40, (name, duration)
    return {"words": words, "evidences": len(evidences), "anchors": len(positions),
            "events": len(frames), "seconds": round(duration, 1)}


# =========================================================================== main

def main():
    index = {"xai": [], "zeta": []}
    for scen in scen_xai.SCENARIOS:
        rec, text, spans, annotations = build_xai(scen)
        path = os.path.join(ROOT, "assets", "recordings", "xai", scen["file"])
        # Check what would be written before writing it.
        probe = "".join(": delay=%d\nevent: %s\ndata: %s\n\n" % (d, k, data) for d, k, _, data in rec.frames)
        stats = check_xai(scen, rec, probe)
        write(path, rec.frames)
        entry = {"file": scen["file"], "title": scen["title"], "prompt": scen["prompt"],
                 "response_id": scen["response_id"], "model": scen["model"]}
        if scen.get("previous_response_id"):
            entry["previous_response_id"] = scen["previous_response_id"]
        index["xai"].append(entry)
        print("xai/%s: %s" % (scen["file"], stats))
    for scen in scen_zeta.SCENARIOS:
        rec, final, evidences = build_zeta(scen)
        path = os.path.join(ROOT, "assets", "recordings", "zeta", scen["file"])
        probe = "".join(": delay=%d\nevent: %s\n%sdata: %s\n\n"
                        % (d, k, "" if i is None else "id: %s\n" % i, data) for d, k, i, data in rec.frames)
        stats = check_zeta(scen, rec, probe)
        write(path, rec.frames)
        index["zeta"].append({"file": scen["file"], "title": scen["title"], "prompt": scen["prompt"],
                              "session_id": scen["session_id"], "message_id": scen["message_id"],
                              "anchors": scen["anchors"]})
        print("zeta/%s: %s" % (scen["file"], stats))
    for provider, entries in index.items():
        with open(os.path.join(ROOT, "assets", "recordings", provider, "index.json"), "w",
                  encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":
    main()
