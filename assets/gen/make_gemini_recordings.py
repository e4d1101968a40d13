#!/usr/bin/env python3
"""Build the offline-demo recordings of Google Gemini streams.

Usage:  python3 assets/gen/make_gemini_recordings.py      (from anywhere)

Three recordings, in the wire shapes Google's SDKs type (python-genai
`google/genai/_gaos/types/interactions/`, and `_interactions/types/` before May 2026) and real
streams show (`event: <event_type>` + `data: {json}`; `event_id` on most events, `v1_` + base64 of
`<index>_<kind>_<n>`):

- `tandem-solar-deep-research.sse`: the Deep Research agent through the Interactions API, in the
  step events (`interaction.created`, `interaction.status_update`, `step.start/delta/stop`,
  `interaction.completed`): thought summaries, Google Search and URL context steps, then the
  report as `text` deltas and `text_annotation_delta` `url_citation`s whose `start_index` /
  `end_index` count UTF-8 bytes of the report text.
- `tandem-solar-follow-up.sse`: a follow-up (`previous_interaction_id`) in the older content events
  (`interaction.start`, `content.start/delta/stop`, `interaction.complete`).
- `tandem-solar-grounded.sse`: a plain model with Google Search grounding,
  `streamGenerateContent?alt=sse`: a thought part, text chunks, and the last chunk's
  `groundingMetadata` (`webSearchQueries`, `groundingChunks` with Google redirect links and bare
  domains as titles, `groundingSupports` in UTF-8 byte offsets).

Every answer puts non-ASCII text (an astral emoji, `≈`, `–`) before its first citation, so byte,
UTF-16 and code-point mix-ups show as misplaced citations. The content is synthetic: the
companies and institutes are real, every figure and URL was written for the demo.

Recording format: `: delay=MS`, `event: <type>` (Interactions only), `data: <compact JSON>`, blank
line. Answers are written with markers `⟦ALIAS⟧cited text⟦/⟧`; the script strips them, computes
the offsets and checks every span before writing. Deterministic; Python standard library only.
"""
import base64
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
OUT = os.path.join(ROOT, "assets", "recordings", "gemini")

from make_recordings import chunk_text, compact  # noqa: E402

MARK = re.compile(r"⟦([^⟧/]+)⟧(.*?)⟦/⟧", re.S)
AGENT = "deep-research-preview-04-2026"
INTERACTION = "v1_ChdkZW1vLXRhbmRlbS1zb2xhci0wMDAxEgxkZWVwLXJlc2VhcmNo"
FOLLOW_UP = "v1_ChdkZW1vLXRhbmRlbS1zb2xhci0wMDAyEgxkZWVwLXJlc2VhcmNo"

SOURCES = {
    "nrel": ("https://www.nrel.gov/pv/interactive-cell-efficiency.html",
             "Interactive Best Research-Cell Efficiency Chart | NREL"),
    "longi": ("https://www.longi.com/en/news/perovskite-tandem-efficiency-record/",
              "LONGi sets a crystalline silicon–perovskite tandem efficiency record"),
    "oxpv": ("https://www.oxfordpv.com/news/tandem-modules-first-commercial-shipments",
             "Oxford PV ships its first perovskite tandem modules"),
    "pvmag": ("https://www.pv-magazine.com/2026/03/12/tandem-stability-damp-heat/",
              "Tandem modules pass damp-heat tests, but outdoor data stay scarce"),
    "iea": ("https://www.iea.org/reports/solar-pv-global-supply-chains",
            "Solar PV Global Supply Chains – Analysis"),
    # the comparison question (other providers cite some of the same pages)
    "na_bnef": ("https://about.bnef.com/insights/sodium-ion-cell-costs-2026",
                "Sodium-ion cell costs: 2026 outlook"),
    "na_iea": ("https://www.iea.org/reports/grid-scale-storage-assessment?utm_campaign=storage",
               "Grid-scale storage: technology assessment"),
    "na_catl": ("https://www.catl.com/en/news/naxtra-sodium-ion",
                "CATL unveils Naxtra sodium-ion battery"),
    "na_fraunhofer": ("https://www.ise.fraunhofer.de/en/press-media/news/2026/sodium-ion-storage-field-test.html",
                      "Sodium-ion home and grid storage in the field – Fraunhofer ISE"),
}
SODIUM = "v1_ChZkZW1vLXNvZGl1bS1pb24tMDAwMRIMZGVlcC1yZXNlYXJjaA"

SODIUM_REPORT = """\
# Sodium-ion vs LFP in grid storage ⚡

**Short answer:** sodium-ion is ≈ at cost parity at the cell level but nowhere near displacing \
lithium iron phosphate in installed grid capacity. ⟦na_bnef⟧Sodium-ion cells cost roughly \
$55–60/kWh in 2026 against $50–55/kWh for LFP⟦/⟧, and ⟦na_iea⟧LFP remains the default for new \
grid projects⟦/⟧.

## Where sodium-ion helps

- ⟦na_catl⟧CATL's second-generation cell keeps over 90 % of its capacity at −20 °C⟦/⟧, an edge \
in cold climates.
- ⟦na_fraunhofer⟧Field tests in Germany show round-trip efficiency a few points below LFP but \
stable over the first 1,500 cycles⟦/⟧.

## What would change the picture

A lithium price spike, or sodium-ion factories at tens of gigawatt-hours; until then it is a \
second chemistry beside LFP.

*Synthetic demo data: the figures and links were written for research-tui's offline demo.*
"""

RESEARCH_REPORT = """\
# Perovskite–silicon tandems: from record cells to the first factories 🔬

**Short answer:** the cells are ready, the factories are not — yet. ⟦nrel⟧Certified lab cells \
have passed 34 % efficiency, well above the ≈ 27 % ceiling of single-junction silicon⟦/⟧, and \
⟦longi⟧LONGi's record 34.85 % cell shows the gap is now a manufacturing question rather than a \
physics one⟦/⟧.

## Where production stands

- ⟦oxpv⟧Oxford PV began commercial shipments of tandem modules at about 24.5 % module \
efficiency, from a pilot line in Brandenburg an der Havel⟦/⟧.
- Chinese makers run pilot lines at hundreds of megawatts; none has announced gigawatt volume.

## What still stands in the way

1. **Stability.** ⟦pvmag⟧Modules now pass the IEC damp-heat and thermal-cycling tests, but \
multi-year outdoor data remain scarce⟦/⟧ — bankability depends on them.
2. **Cost.** ⟦iea⟧Silicon module prices fell below US$0.10/W in 2025⟦/⟧, so a tandem must pay \
for its extra layers with efficiency alone.

*Synthetic demo data: the figures and links were written for research-tui's offline demo.*
"""

FOLLOW_UP_REPORT = """\
Three things would move tandems into gigawatt factories — in order of weight:

1. **Field data.** ⟦pvmag⟧Insurers and lenders want years of outdoor performance, not only \
damp-heat certificates⟦/⟧.
2. **Throughput.** Perovskite layers must be deposited at silicon-line speed (≈ 8,000 wafers/h).
3. **A price premium.** ⟦iea⟧With silicon modules under US$0.10/W⟦/⟧, the ~2 points of extra \
efficiency have to be worth more than the added steps.

*Synthetic demo data, written for research-tui's offline demo.*
"""

GROUNDED_ANSWER = """\
Perovskite–silicon tandem solar is close to, but not yet at, mass production 🌞. \
⟦nrel⟧Record research cells exceed 34 % efficiency⟦/⟧, and ⟦oxpv,longi⟧the first commercial \
tandem modules have shipped while large manufacturers run pilot lines⟦/⟧. The open questions are \
long-term stability and cost: ⟦pvmag⟧outdoor track records are still short⟦/⟧.

*Synthetic demo data, written for research-tui's offline demo.*"""

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ"


def strip(marked):
    """Markers out: (text, [(alias, cp_start, cp_end, byte_start, byte_end)])."""
    out, spans, pos = "", [], 0
    for m in MARK.finditer(marked):
        out += marked[pos:m.start()]
        start = len(out)
        out += m.group(2)
        for alias in m.group(1).split(","):
            spans.append((alias, start, len(out)))
        pos = m.end()
    out += marked[pos:]
    assert "⟦" not in out and "⟧" not in out
    with_bytes = []
    for alias, start, end in spans:
        b0, b1 = len(out[:start].encode()), len(out[:end].encode())
        assert out.encode()[b0:b1].decode() == out[start:end]
        with_bytes.append((alias, start, end, b0, b1))
    return out, with_bytes


def event_id(index, kind, n):
    token = base64.urlsafe_b64encode(f"{index}_{kind}_{n}".encode()).decode().rstrip("=")
    return "v1_" + token


class Interaction:
    """Frames of one Interactions stream, in the step shape or the older content shape."""

    def __init__(self, name, steps):
        self.rng = random.Random(zlib.crc32(name.encode()))
        self.steps = steps
        self.frames = []
        self.n = 0

    def emit(self, delay, payload, index=0, kind="interaction", with_id=True):
        self.n += 1
        if with_id:
            payload = {**payload, "event_id": event_id(index, kind, self.n)}
        self.frames.append((delay, payload["event_type"], payload))

    def start(self, interaction_id, previous):
        kind = "interaction.created" if self.steps else "interaction.start"
        body = {"id": interaction_id, "status": "in_progress", "object": "interaction",
                "agent": AGENT, "created": "2026-11-20T09:14:03Z"}
        if previous:
            body["previous_interaction_id"] = previous
        self.emit(700, {"event_type": kind, "interaction": body}, with_id=self.steps)
        self.emit(120, {"event_type": "interaction.status_update",
                        "interaction_id": interaction_id, "status": "in_progress"}, with_id=False)

    def block(self, index, item, deltas, pace):
        start, delta, stop = (("step.start", "step.delta", "step.stop") if self.steps
                              else ("content.start", "content.delta", "content.stop"))
        key = "step" if self.steps else "content"
        self.emit(pace[0], {"event_type": start, "index": index, key: item}, index,
                  item["type"], with_id=False)
        for d in deltas:
            self.emit(self.rng.randint(*pace), {"event_type": delta, "index": index, "delta": d},
                      index, d["type"])
        self.emit(80, {"event_type": stop, "index": index}, index, "stop")

    def thought(self, index, summaries):
        deltas = [{"type": "thought_summary", "content": {"type": "text", "text": s}}
                  for s in summaries]
        self.block(index, {"type": "thought"}, deltas, (500, 1400))

    def search(self, index, queries):
        call = {"type": "google_search_call", "id": f"gs_{index}", "arguments": {"queries": queries}}
        if self.steps:
            self.block(index, call, [], (900, 900))
        else:
            self.block(index, {"type": "google_search_call"}, [call], (300, 900))
        result = {"type": "google_search_result", "call_id": f"gs_{index}",
                  "result": [{"search_suggestions": "<div class=\"chip\">…</div>"}]}
        self.block(index + 1, {"type": "google_search_result"}, [result], (1200, 1200))

    def read(self, index, urls):
        call = {"type": "url_context_call", "id": f"uc_{index}", "arguments": {"urls": urls}}
        self.block(index, {"type": "url_context_call"}, [call], (400, 700))
        result = {"type": "url_context_result", "call_id": f"uc_{index}",
                  "result": [{"url": u, "status": "success"} for u in urls]}
        self.block(index + 1, {"type": "url_context_result"}, [result], (1500, 1500))

    def report(self, index, marked):
        text, spans = strip(marked)
        chunks = chunk_text(text, self.rng, (2, 3, 4, 5), 0.1)
        assert "".join(chunks) == text
        deltas = [{"type": "text", "text": c} for c in chunks]
        annotations = [{"type": "url_citation", "url": SOURCES[a][0], "title": SOURCES[a][1],
                        "start_index": b0, "end_index": b1} for a, _, _, b0, b1 in spans]
        # The annotations follow the text they point into, in two deltas.
        half = len(annotations) // 2
        deltas += [{"type": "text_annotation_delta", "annotations": annotations[:half]},
                   {"type": "text_annotation_delta", "annotations": annotations[half:]}]
        kind = "model_output" if self.steps else "text"
        self.block(index, {"type": kind}, deltas, (20, 60))
        return text, spans

    def complete(self, interaction_id, usage):
        kind = "interaction.completed" if self.steps else "interaction.complete"
        self.emit(300, {"event_type": kind, "interaction": {
            "id": interaction_id, "status": "completed", "object": "interaction", "agent": AGENT,
            "updated": "2026-11-20T09:21:47Z", "usage": usage}})

    def write(self, path):
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            for delay, kind, payload in self.frames:
                f.write(f": delay={delay}\nevent: {kind}\ndata: {compact(payload)}\n\n")
        return len(self.frames)


def deep_research():
    rec = Interaction("tandem-solar-deep-research", steps=True)
    rec.start(INTERACTION, None)
    rec.thought(0, ["**Planning the research**\n\nI'll separate record cell efficiencies from "
                    "what factories ship, then look at stability and cost.\n\n",
                    "**Choosing sources**\n\nCertified efficiency tables first, then "
                    "manufacturers' announcements and independent reporting.\n\n"])
    rec.search(1, ["perovskite silicon tandem record efficiency certified 2026",
                   "perovskite tandem module commercial shipments"])
    rec.thought(3, ["**Reading the announcements**\n\nOxford PV and LONGi both report "
                    "figures; I need the module numbers, not only cells.\n\n"])
    rec.read(4, [SOURCES["oxpv"][0], SOURCES["longi"][0]])
    rec.search(6, ["perovskite tandem damp heat IEC 61215 outdoor stability",
                   "silicon module price per watt 2025"])
    rec.thought(8, ["**Writing the report**\n\nEfficiency is settled; the open questions are "
                    "durability and cost per watt.\n\n"])
    text, spans = rec.report(9, RESEARCH_REPORT)
    rec.complete(INTERACTION, {"total_input_tokens": 48210, "total_output_tokens": 3920,
                               "total_thought_tokens": 6110, "total_cached_tokens": 12000,
                               "total_tokens": 58240})
    return rec, text, spans


def follow_up():
    rec = Interaction("tandem-solar-follow-up", steps=False)
    rec.start(FOLLOW_UP, INTERACTION)
    rec.thought(0, ["**Building on the report**\n\nThe bottlenecks were stability and cost; "
                    "I'll rank what would unblock each.\n\n"])
    rec.search(1, ["perovskite tandem bankability insurers outdoor data"])
    text, spans = rec.report(3, FOLLOW_UP_REPORT)
    rec.complete(FOLLOW_UP, {"total_input_tokens": 9120, "total_output_tokens": 1210,
                             "total_thought_tokens": 1530, "total_tokens": 11860})
    return rec, text, spans


def sodium():
    rec = Interaction("sodium-ion-deep-research", steps=True)
    rec.start(SODIUM, None)
    rec.thought(0, ["**Planning the research**\n\nI'll compare cell costs and efficiency first, "
                    "then look for field evidence of sodium-ion in storage.\n\n"])
    rec.search(1, ["sodium-ion vs LFP cell cost 2026 grid storage",
                   "sodium-ion storage field test round-trip efficiency"])
    rec.read(3, [SOURCES["na_catl"][0], SOURCES["na_fraunhofer"][0]])
    rec.thought(5, ["**Writing the report**\n\nCost is close; deployment is not. I'll say "
                    "what would close the gap.\n\n"])
    text, spans = rec.report(6, SODIUM_REPORT)
    rec.complete(SODIUM, {"total_input_tokens": 31870, "total_output_tokens": 2140,
                          "total_thought_tokens": 3980, "total_cached_tokens": 4096,
                          "total_tokens": 37990})
    return rec, text, spans


def grounded(path):
    rng = random.Random(zlib.crc32(b"tandem-solar-grounded"))
    text, spans = strip(GROUNDED_ANSWER)
    order = list(dict.fromkeys(alias for alias, *_ in spans))
    chunks = [{"web": {"uri": REDIRECT + zlib.crc32(a.encode()).to_bytes(4, "big").hex() * 6,
                       "title": SOURCES[a][0].split("/")[2].removeprefix("www.")}}
              for a in order] + [{"web": {"uri": REDIRECT + "f00dcafe" * 6, "title": "iea.org"}}]
    supports = {}
    for alias, _, _, b0, b1 in spans:
        segment = text.encode()[b0:b1].decode()
        supports.setdefault((b0, b1, segment), []).append(order.index(alias))
    metadata = {
        "webSearchQueries": ["perovskite silicon tandem mass production 2026",
                             "perovskite tandem module stability"],
        "groundingChunks": chunks,
        "groundingSupports": [{"segment": {"startIndex": b0, "endIndex": b1, "text": s},
                               "groundingChunkIndices": idx}
                              for (b0, b1, s), idx in supports.items()],
    }
    head = {"modelVersion": "gemini-2.5-flash", "responseId": "dGFuZGVtLXNvbGFyLWdyb3VuZGVk"}
    usage = {"promptTokenCount": 14, "candidatesTokenCount": 96, "thoughtsTokenCount": 212,
             "toolUsePromptTokenCount": 131, "totalTokenCount": 453}
    parts = [[{"text": "**Checking the state of tandem production**\n\nI'll look for record "
                       "efficiencies and the first commercial shipments.\n\n", "thought": True}]]
    parts += [[{"text": c}] for c in chunk_text(text, rng, (1, 2, 3), 0.1)]
    assert "".join(p[0]["text"] for p in parts[1:]) == text
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for i, part in enumerate(parts):
            candidate = {"content": {"parts": part, "role": "model"}, "index": 0}
            if i == len(parts) - 1:
                candidate["finishReason"] = "STOP"
                candidate["groundingMetadata"] = metadata
            chunk = {"candidates": [candidate], "usageMetadata": usage, **head}
            f.write(f": delay={900 if i == 0 else rng.randint(40, 120)}\n"
                    f"data: {compact(chunk)}\n\n")
    return len(parts), text, spans


def main():
    os.makedirs(OUT, exist_ok=True)
    index = []
    for make, name, prompt, iid, prev in [
        (deep_research, "tandem-solar-deep-research.sse",
         "How far has perovskite–silicon tandem solar come toward mass production?",
         INTERACTION, None),
        (follow_up, "tandem-solar-follow-up.sse",
         "What would have to happen for tandems to reach gigawatt factories?",
         FOLLOW_UP, INTERACTION),
        (sodium, "sodium-ion-deep-research.sse",
         "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
         SODIUM, None),
    ]:
        rec, text, spans = make()
        frames = rec.write(os.path.join(OUT, name))
        index.append({"file": name, "endpoint": "interactions", "prompt": prompt,
                      "interaction_id": iid, "previous_interaction_id": prev,
                      "shape": "steps" if rec.steps else "content", "frames": frames,
                      "citations": len(spans)})
    frames, text, spans = grounded(os.path.join(OUT, "tandem-solar-grounded.sse"))
    index.append({"file": "tandem-solar-grounded.sse", "endpoint": "stream-generate-content",
                  "model": "gemini-2.5-flash",
                  "prompt": "Is perovskite–silicon tandem solar in mass production yet?",
                  "frames": frames, "citations": len(spans)})
    with open(os.path.join(OUT, "index.json"), "w", encoding="utf-8") as f:
        json.dump(index, f, ensure_ascii=False, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
