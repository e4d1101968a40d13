#!/usr/bin/env python3
"""Build the offline-demo recordings of OpenAI Responses (deep research) and Perplexity Sonar streams.

Usage:  python3 assets/gen/make_research_api_recordings.py      (from anywhere)

The wire shapes follow real public recordings and the providers' SDK types (see docs/providers.md, Wire notes):

OpenAI (`assets/recordings/openai/`): `event: response.*` + `data: {"type": …, "sequence_number": n, …}`,
sequence numbers 0, 1, 2, … with no gap.  A background deep research run opens with
`response.created` and `response.queued` (status `queued`, `background: true`), then
`response.in_progress`; reasoning items stream their summary (`response.reasoning_summary_text.delta`);
each `web_search_call` item is announced in progress, goes through `.in_progress` / `.searching` /
`.completed`, and its `output_item.done` carries the action: `search` (`query`), `open_page` (`url`)
or `find_in_page` (`url`, `pattern`).  The answer cites with Markdown links the model wrote,
`([domain](url?utm_source=openai))`, each covered by a `url_citation` annotation whose
`start_index`/`end_index` are Python string indices (code points) of the whole link, parentheses
included; `response.completed` repeats every output item.

Perplexity (`assets/recordings/perplexity/`): plain `data:` lines (no `event:`), each a
`chat.completion.chunk` with `id`, `model`, `created`, `usage`, `citations`, `search_results` and
`choices[0].delta.content`; the last chunk is `chat.completion.done` with `finish_reason: "stop"`.
Reasoning models open with `<think>…</think>` (split across chunks here on purpose).  `[n]` cites
entry n (1-based) of `citations` / `search_results`.

Deterministic (random.Random seeded with the file name), standard library only.  Don't run it with
`python3 -O` (that disables the checks).
"""
import json
import os
import random
import re
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))

from make_recordings import chunk_text, compact  # noqa: E402

MARK = re.compile(r"⟦(\d+)⟧")
CREATED = 1776499200


def write(path, frames):
    """frames: [(delay_ms, event_or_None, data_str)]"""
    out = []
    for delay, event, data in frames:
        assert "\n" not in data and "\r" not in data
        out.append(": delay=%d\n" % delay)
        if event is not None:
            out.append("event: %s\n" % event)
        out.append("data: %s\n\n" % data)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(out))


# --------------------------------------------------------------------------- OpenAI

OPENAI = [
    {
        "file": "sodium-ion-grid-storage.sse",
        "title": "Deep research: sodium-ion vs LFP for grid storage",
        "prompt": "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
        "response_id": "resp_68c2a9f1e0b4819d9a7c3f5e21b0d4c7",
        "model": "o4-mini-deep-research-2025-06-26",
        "previous": None,
        "sources": {
            1: ("CATL unveils Naxtra sodium-ion battery", "https://www.catl.com/en/news/naxtra-sodium-ion"),
            2: ("Sodium-ion cell costs: 2026 outlook", "https://about.bnef.com/insights/sodium-ion-cell-costs-2026"),
            3: ("HiNa's 100 MWh sodium-ion storage station", "https://www.pv-magazine.com/2026/03/hina-100-mwh-sodium-ion"),
            4: ("Grid-scale storage: technology assessment", "https://www.iea.org/reports/grid-scale-storage-assessment"),
        },
        "steps": [
            ("think", "**Framing the comparison**\n\nThe user wants to know how close sodium-ion is to replacing LFP in grid storage. I need cost per kWh, cycle life, round-trip efficiency and actual deployments, ideally from 2025–2026 sources."),
            ("search", "sodium-ion battery grid storage deployment 2026 MWh"),
            ("search", "sodium-ion vs LFP cell cost per kWh 2026"),
            ("think", "**Checking the cost claims**\n\nCost figures differ between analysts. I'll open the BNEF outlook and look for the cell-level price comparison rather than pack prices."),
            ("open_page", "https://about.bnef.com/insights/sodium-ion-cell-costs-2026"),
            ("find_in_page", ("https://about.bnef.com/insights/sodium-ion-cell-costs-2026", "$/kWh")),
            ("search", "CATL Naxtra sodium-ion energy density cycle life"),
            ("think", "**Weighing deployment evidence**\n\nHiNa's station is the largest operating project I found; the IEA assessment gives round-trip efficiencies for both chemistries. That is enough to answer with numbers and caveats."),
            ("open_page", "https://www.iea.org/reports/grid-scale-storage-assessment"),
        ],
        "answer": (
            "# Sodium-ion vs LFP for grid storage 🔋\n\n"
            "**Short answer:** sodium-ion is competitive on cost at the cell level but not yet displacing "
            "lithium iron phosphate (LFP) at scale; expect it to take a meaningful share of new stationary "
            "projects from about 2027, first where cold climates or lithium price spikes favour it.\n\n"
            "## Where sodium-ion stands\n\n"
            "- **Energy density:** CATL's second-generation cell reaches about 175 Wh/kg, close to entry-level "
            "LFP, and keeps over 90 % of its capacity at −20 °C⟦1⟧.\n"
            "- **Cost:** analysts put sodium-ion cells at roughly $55–60/kWh in 2026 against $50–55/kWh for "
            "LFP, so the gap has nearly closed but not reversed⟦2⟧.\n"
            "- **Deployments:** the largest operating project is HiNa's 100 MWh station in Hubei, running since "
            "2025 with no reported capacity fade beyond guidance⟦3⟧.\n\n"
            "## What still favours LFP\n\n"
            "Round-trip efficiency is a few points lower for sodium-ion (about 88 % against 92 %), and LFP "
            "supply chains are far deeper⟦4⟧. Cycle life is the open question: sodium-ion makers quote "
            "6,000+ cycles, but field data beyond three years does not exist yet⟦1⟧.\n\n"
            "*Figures are illustrative demo content, not market data.*"
        ),
    },
    {
        "file": "sodium-ion-follow-up.sse",
        "title": "Follow-up: what would speed sodium-ion adoption",
        "prompt": "What would have to happen for sodium-ion to overtake LFP in new projects?",
        "response_id": "resp_68c2ab27f4c08190b3e6d1a9c57e2f08",
        "model": "o4-mini-deep-research-2025-06-26",
        "previous": "resp_68c2a9f1e0b4819d9a7c3f5e21b0d4c7",
        "sources": {
            1: ("Lithium carbonate price tracker", "https://www.fastmarkets.com/lithium-carbonate-price-2026"),
            2: ("Sodium-ion cell costs: 2026 outlook", "https://about.bnef.com/insights/sodium-ion-cell-costs-2026"),
        },
        "steps": [
            ("think", "**Identifying the tipping points**\n\nThe follow-up asks for conditions. Lithium prices and sodium-ion manufacturing scale are the two levers; let me check the current lithium carbonate price."),
            ("search", "lithium carbonate price 2026 trend"),
            ("open_page", "https://www.fastmarkets.com/lithium-carbonate-price-2026"),
        ],
        "answer": (
            "Three things would tip new projects towards sodium-ion:\n\n"
            "1. **Lithium prices rising again.** Sodium-ion's advantage is insulation from lithium: a return "
            "of lithium carbonate above about $25,000/t would make it the cheaper chemistry⟦1⟧.\n"
            "2. **Manufacturing scale.** Cell costs fall with volume; another 50 GWh of sodium-ion capacity "
            "would push cells below LFP on most estimates⟦2⟧.\n"
            "3. **Field data.** Utilities want five years of degradation data before they change procurement "
            "rules.\n\n"
            "*Illustrative demo content.*"
        ),
    },
]


def link(source):
    title, url = source
    domain = url.split("/")[2].removeprefix("www.")
    return " ([%s](%s?utm_source=openai))" % (domain, url)


def openai_answer(marked, sources):
    """Replace ⟦n⟧ with the Markdown link the model writes; return text and annotations."""
    text, annotations, last = "", [], 0
    for m in MARK.finditer(marked):
        text += marked[last:m.start()]
        source = sources[int(m.group(1))]
        piece = link(source)
        # The span is the link with its parentheses (the leading space is not part of it).
        start = len(text) + 1
        text += piece
        annotations.append({
            "type": "url_citation",
            "end_index": len(text),
            "start_index": start,
            "title": source[0],
            "url": source[1] + "?utm_source=openai",
        })
        last = m.end()
    text += marked[last:]
    for a in annotations:
        span = text[a["start_index"]:a["end_index"]]
        assert span.startswith("([") and span.endswith("))") and a["url"] in span, span
    return text, annotations


class OpenAIRecorder:
    def __init__(self, spec, rng):
        self.spec, self.rng = spec, rng
        self.frames, self.seq, self.output = [], 0, []

    def emit(self, delay, kind, **fields):
        payload = {"type": kind, "sequence_number": self.seq}
        payload.update(fields)
        self.seq += 1
        self.frames.append((delay, kind, compact(payload)))

    def response(self, status, output, usage=None):
        spec = self.spec
        return {
            "id": spec["response_id"], "object": "response", "created_at": CREATED,
            "status": status, "background": True, "error": None, "incomplete_details": None,
            "instructions": None, "max_output_tokens": None, "max_tool_calls": None,
            "model": spec["model"], "output": output, "parallel_tool_calls": True,
            "previous_response_id": spec["previous"],
            "reasoning": {"effort": "medium", "summary": "detailed"},
            "service_tier": "auto", "store": True, "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [{"type": "web_search_preview", "search_context_size": "medium",
                       "user_location": {"type": "approximate", "city": None, "country": "US",
                                         "region": None, "timezone": None}}],
            "top_p": 1.0, "truncation": "disabled", "usage": usage, "user": None, "metadata": {},
        }

    def item_id(self, prefix):
        return "%s_%s" % (prefix, "".join(self.rng.choice("0123456789abcdef") for _ in range(48)))

    def reasoning(self, text):
        rng, index = self.rng, len(self.output)
        item = {"id": self.item_id("rs"), "type": "reasoning", "summary": []}
        self.emit(rng.randint(600, 1500), "response.output_item.added", output_index=index, item=item)
        part = {"type": "summary_text", "text": ""}
        common = {"item_id": item["id"], "output_index": index, "summary_index": 0}
        self.emit(30, "response.reasoning_summary_part.added", part=part, **common)
        for piece in chunk_text(text, rng, [2, 3, 4, 5], 0.1):
            self.emit(rng.randint(30, 80), "response.reasoning_summary_text.delta", delta=piece,
                      obfuscation="".join(rng.choice("abcdefghijklmnop") for _ in range(8)), **common)
        self.emit(20, "response.reasoning_summary_text.done", text=text, **common)
        done = {"type": "summary_text", "text": text}
        self.emit(10, "response.reasoning_summary_part.done", part=done, **common)
        item = dict(item, summary=[done])
        self.emit(10, "response.output_item.done", output_index=index, item=item)
        self.output.append(item)

    def web_search(self, kind, arg):
        rng, index = self.rng, len(self.output)
        item_id = self.item_id("ws")
        started = {"id": item_id, "type": "web_search_call", "status": "in_progress"}
        self.emit(rng.randint(300, 700), "response.output_item.added", output_index=index, item=started)
        for phase, delay in [("in_progress", 20), ("searching", 40), ("completed", rng.randint(700, 1600))]:
            self.emit(delay, "response.web_search_call." + phase, output_index=index, item_id=item_id)
        if kind == "search":
            action = {"type": "search", "query": arg}
        elif kind == "open_page":
            action = {"type": "open_page", "url": arg}
        else:
            action = {"type": "find_in_page", "url": arg[0], "pattern": arg[1]}
        item = {"id": item_id, "type": "web_search_call", "status": "completed", "action": action}
        self.emit(15, "response.output_item.done", output_index=index, item=item)
        self.output.append(item)

    def message(self, text, annotations):
        rng, index = self.rng, len(self.output)
        item_id = self.item_id("msg")
        item = {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
        self.emit(rng.randint(800, 1400), "response.output_item.added", output_index=index, item=item)
        common = {"item_id": item_id, "output_index": index, "content_index": 0}
        empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        self.emit(20, "response.content_part.added", part=empty, **common)
        sent, pending = 0, list(annotations)
        for piece in chunk_text(text, rng, [1, 2, 2, 3, 4], 0.15):
            self.emit(rng.randint(15, 50), "response.output_text.delta", delta=piece, logprobs=[],
                      obfuscation="".join(rng.choice("ABCDEFGH") for _ in range(4)), **common)
            sent += len(piece)
            # An annotation follows the delta that completes its link, as on the wire.
            while pending and pending[0]["end_index"] <= sent:
                a = pending.pop(0)
                self.emit(5, "response.output_text.annotation.added",
                          annotation_index=annotations.index(a), annotation=a, **common)
        assert not pending
        self.emit(20, "response.output_text.done", text=text, logprobs=[], **common)
        part = {"type": "output_text", "annotations": annotations, "logprobs": [], "text": text}
        self.emit(10, "response.content_part.done", part=part, **common)
        item = dict(item, status="completed", content=[part])
        self.emit(10, "response.output_item.done", output_index=index, item=item)
        self.output.append(item)


def openai_recording(spec):
    rng = random.Random(spec["file"])
    rec = OpenAIRecorder(spec, rng)
    rec.emit(900, "response.created", response=rec.response("queued", []))
    rec.emit(120, "response.queued", response=rec.response("queued", []))
    rec.emit(2200, "response.in_progress", response=rec.response("in_progress", []))
    for kind, arg in spec["steps"]:
        if kind == "think":
            rec.reasoning(arg)
        else:
            rec.web_search(kind, arg)
    text, annotations = openai_answer(spec["answer"], spec["sources"])
    rec.message(text, annotations)
    words = len(text.split())
    usage = {"input_tokens": 2148 + 37 * words, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 6 * words, "output_tokens_details": {"reasoning_tokens": 3 * words},
             "total_tokens": 2148 + 37 * words + 6 * words}
    rec.emit(60, "response.completed", response=rec.response("completed", rec.output, usage))
    assert [json.loads(f[2])["sequence_number"] for f in rec.frames] == list(range(len(rec.frames)))
    return rec.frames, text, annotations


# --------------------------------------------------------------------------- Perplexity

PERPLEXITY = [
    {
        "file": "eu-ai-act-gpai.sse",
        "title": "EU AI Act: general-purpose AI obligations in 2025",
        "prompt": "What changed in the EU AI Act's obligations for general-purpose AI models in 2025?",
        "id": "6f1c0b9e-2d4a-4b8e-9c57-3a1e8f0d2b64",
        "model": "sonar-reasoning-pro",
        "think": (
            "The user asks about 2025 changes for general-purpose AI (GPAI) models under the AI Act. "
            "Key facts: obligations applied from 2 August 2025, the Commission published guidelines and a "
            "code of practice, and models placed on the market before that date have until 2027. "
            "Let me structure this with dates and cite the regulation, the guidelines and the code."
        ),
        "results": [
            ("Regulation (EU) 2024/1689 (AI Act)", "https://eur-lex.europa.eu/eli/reg/2024/1689/oj", "2024-07-12",
             "Obligations for providers of general-purpose AI models apply from 2 August 2025."),
            ("Guidelines on the scope of obligations for GPAI providers", "https://digital-strategy.ec.europa.eu/en/library/guidelines-gpai-providers", "2025-07-18",
             "The guidelines clarify when a model counts as general-purpose and who is its provider."),
            ("The General-Purpose AI Code of Practice", "https://digital-strategy.ec.europa.eu/en/policies/contents-code-gpai", "2025-07-10",
             "The code has three chapters: transparency, copyright, and safety and security."),
            ("AI Act implementation timeline", "https://artificialintelligenceact.eu/implementation-timeline/", "2025-08-01",
             "Models placed on the market before 2 August 2025 must comply by 2 August 2027."),
            ("Commission opens consultation on GPAI thresholds", "https://www.euractiv.com/section/tech/news/gpai-thresholds-consultation/", "2025-04-22",
             "The Commission consulted on the 10^25 FLOP systemic-risk threshold."),
        ],
        "answer": (
            "In 2025 the AI Act's rules for **general-purpose AI (GPAI) models** started to apply 📜.\n\n"
            "- **2 August 2025:** providers of GPAI models must keep technical documentation, share "
            "information with downstream providers and publish a summary of training content [1][4].\n"
            "- **Guidelines (July 2025):** the Commission clarified which models count as general-purpose "
            "and who counts as their provider [2].\n"
            "- **Code of Practice:** a voluntary code with chapters on transparency, copyright, and safety "
            "and security gives providers a way to show compliance [3].\n"
            "- **Models with systemic risk** (trained with more than 10^25 FLOP) also need evaluations, "
            "incident reporting and cybersecurity measures [1].\n\n"
            "Models already on the market before 2 August 2025 have until **2 August 2027** [4].\n\n"
            "*Illustrative demo content.*"
        ),
    },
    {
        "file": "eu-ai-act-follow-up.sse",
        "title": "Follow-up: fines for GPAI providers",
        "prompt": "And what are the fines for GPAI providers?",
        "id": "b3d7e2a1-9f04-4c6b-8e15-7a2c9d0f4e38",
        "model": "sonar-pro",
        "think": None,
        "results": [
            ("Regulation (EU) 2024/1689, Article 101", "https://eur-lex.europa.eu/eli/reg/2024/1689/oj#art_101", "2024-07-12",
             "Fines of up to 3 % of annual worldwide turnover or EUR 15 million."),
            ("When GPAI fines start", "https://artificialintelligenceact.eu/article/101/", "2025-08-02",
             "The Commission's power to fine applies from 2 August 2026."),
        ],
        "answer": (
            "GPAI providers face fines of up to **3 % of worldwide annual turnover or €15 million**, "
            "whichever is higher [1]. The Commission can impose them from **2 August 2026**, a year after "
            "the obligations began [2].\n\n"
            "*Illustrative demo content.*"
        ),
    },
    {
        # The comparison question (OpenAI's sodium-ion-grid-storage.sse and Bigdata.com's
        # sodium-ion-research.sse answer it too): sources that overlap theirs, one with a fragment.
        "file": "sodium-ion-sonar.sse",
        "title": "Sodium-ion vs LFP for grid storage (Sonar)",
        "prompt": "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
        "id": "0c9e4f27-5a1d-4e3b-8f62-d17a2b9c4e05",
        "model": "sonar-pro",
        "think": None,
        "results": [
            ("Sodium-ion cell costs: 2026 outlook", "https://about.bnef.com/insights/sodium-ion-cell-costs-2026#cell-prices", "2026-02-10",
             "Sodium-ion cells average about $58/kWh in 2026, against $53/kWh for LFP cells."),
            ("LFP still wins grid tenders as sodium-ion waits for scale", "https://www.energy-storage.news/lfp-still-wins-grid-tenders-sodium-ion/", "2026-03-20",
             "LFP remains the default chemistry for new grid projects; sodium-ion is an emerging alternative."),
            ("Sodium-ion storage orders jump as Chinese utilities hedge lithium risk", "https://www.reuters.com/business/energy/sodium-ion-storage-orders-2026-04-02/", "2026-04-02",
             "Chinese utilities ordered about 6 GWh of sodium-ion storage in the first quarter."),
            ("Sodium-ion in stationary storage: outlook to 2030", "https://www.woodmac.com/news/opinion/sodium-ion-stationary-storage-outlook/", "2026-03-05",
             "Sodium-ion could reach 10-15% of new stationary storage by 2030 if lithium prices rise."),
            ("Sodium-ion battery", "https://en.wikipedia.org/wiki/Sodium-ion_battery", "2026-04-30",
             "A sodium-ion battery uses sodium ions as its charge carriers."),
            ("Grid-scale storage: technology assessment", "https://www.iea.org/reports/grid-scale-storage-assessment", "2026-01-28",
             "Round-trip efficiency: LFP about 92%, sodium-ion about 88%."),
        ],
        "answer": (
            "Sodium-ion is **close on cost but far behind on volume** 🔋.\n\n"
            "- **Cost:** sodium-ion cells average about $58/kWh in 2026 against $53/kWh for LFP cells, so the "
            "gap is small but still in LFP's favour [1].\n"
            "- **Default chemistry:** LFP remains the default for new grid projects, with deeper supply chains "
            "and higher round-trip efficiency [2].\n"
            "- **Orders:** Chinese utilities ordered about 6 GWh of sodium-ion storage in the first quarter of "
            "2026, a small fraction of LFP orders, mainly as a hedge against lithium prices [3].\n"
            "- **Outlook:** analysts see sodium-ion reaching 10–15 % of new stationary storage by 2030, but only "
            "if lithium prices rise again [4][1].\n\n"
            "In short: a credible second chemistry, not a replacement, for at least the next few years.\n\n"
            "*Illustrative demo content.*"
        ),
    },
]


def perplexity_recording(spec):
    rng = random.Random(spec["file"])
    results = [{"title": t, "url": u, "date": d, "last_updated": d, "snippet": s, "source": "web"}
               for t, u, d, s in spec["results"]]
    citations = [r["url"] for r in results]
    answer = spec["answer"]
    for n in map(int, re.findall(r"\[(\d+)\]", answer)):
        assert 1 <= n <= len(citations), n
    content = answer if spec["think"] is None else "<think>\n%s\n</think>\n\n%s" % (spec["think"], answer)
    if spec["think"] is None:
        pieces = chunk_text(content, rng, [1, 2, 3], 0.1)
    else:
        # The wire splits tags anywhere: both tags are split across chunks here.
        pieces = ["<thi", "nk>"] + chunk_text(content[len("<think>"):], rng, [2, 3, 4, 5], 0.1)
        whole = [i for i, p in enumerate(pieces) if "</think>" in p]
        for i in whole:
            at = pieces[i].index("</think>") + 4
            pieces[i:i + 1] = [pieces[i][:at], pieces[i][at:]]
        assert not any("</think>" in p for p in pieces)
    assert "".join(pieces) == content
    frames, completion = [], 0
    for i, piece in enumerate(pieces):
        completion += 1
        chunk = {
            "id": spec["id"], "model": spec["model"], "created": CREATED + i // 40,
            "usage": {"prompt_tokens": 14, "completion_tokens": completion, "total_tokens": 14 + completion},
            "citations": citations, "search_results": results, "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"role": "assistant", "content": piece}}],
        }
        delay = rng.randint(900, 1600) if i == 0 else rng.randint(15, 55)
        frames.append((delay, None, compact(chunk)))
    done = {
        "id": spec["id"], "model": spec["model"], "created": CREATED + len(pieces) // 40,
        "usage": {"prompt_tokens": 14, "completion_tokens": completion, "total_tokens": 14 + completion,
                  "citation_tokens": 2840, "num_search_queries": 3,
                  "cost": {"input_tokens_cost": 0.0, "output_tokens_cost": 0.004, "request_cost": 0.006,
                           "total_cost": 0.01}},
        "citations": citations, "search_results": results, "object": "chat.completion.done",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": "stop"}],
    }
    frames.append((40, None, compact(done)))
    return frames, answer


def main():
    index = {"openai": [], "perplexity": []}
    for spec in OPENAI:
        frames, text, annotations = openai_recording(spec)
        write(os.path.join(ROOT, "assets/recordings/openai", spec["file"]), frames)
        index["openai"].append({k: spec[k] for k in ("file", "title", "prompt", "response_id", "model")}
                               | {"previous_response_id": spec["previous"],
                                  "frames": len(frames), "citations": len(annotations),
                                  "web_search_calls": sum(1 for s in spec["steps"] if s[0] != "think")})
        assert 60 <= len(text.split()) <= 400, len(text.split())
    for spec in PERPLEXITY:
        frames, answer = perplexity_recording(spec)
        write(os.path.join(ROOT, "assets/recordings/perplexity", spec["file"]), frames)
        index["perplexity"].append({k: spec[k] for k in ("file", "title", "prompt", "id", "model")}
                                   | {"frames": len(frames), "markers": len(re.findall(r"\[\d+\]", answer)),
                                      "search_results": len(spec["results"])})
    for provider, entries in index.items():
        path = os.path.join(ROOT, "assets/recordings", provider, "index.json")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(entries, ensure_ascii=False, indent=2) + "\n")


if __name__ == "__main__":
    main()
