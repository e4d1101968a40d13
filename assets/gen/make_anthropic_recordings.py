#!/usr/bin/env python3
"""Build the offline-demo recordings of Anthropic Messages streams with web search.

Usage:  python3 assets/gen/make_anthropic_recordings.py      (from anywhere)

Three recordings, in the wire shape of the real streams in tests/fixtures/real/anthropic-*.sse
(`event: <type>` + `data: {"type": <type>, …}`, `ping`s, `input_json_delta`s, text blocks split at
citation boundaries, each cited block opened with `"citations": []` and its `citations_delta`s
before its text):

- congestion-pricing.sse: a question; thinking, two searches, cited text, then a third search that
  the server pauses (`stop_reason: pause_turn`) before its result;
- congestion-pricing-continued.sse: the continuation (the request sends the paused content back):
  the third search's result first, then the rest of the answer, `end_turn`;
- congestion-pricing-follow-up.sse: a follow-up question's answer;
- congestion-pricing-unpaused.sse (not played by the demo): the same turn in one message, never
  paused, for the test that a continued turn ends as the same answer.

Every citation's `cited_text` is a sentence of its search result's page (the demo makes the pages
up; the names and dates are real). Deterministic (random seeded with the file name); standard
library only. Don't run it with `python3 -O` (that disables the checks).
"""
import json
import os
import random
import sys
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "assets", "recordings", "anthropic")

from make_recordings import chunk_text, compact  # noqa: E402

MODEL = "claude-sonnet-4-5-20250929"

PAGES = {
    "tfl": ("Congestion Charge – Transport for London", "https://tfl.gov.uk/modes/driving/congestion-charge",
            "The Congestion Charge started on 17 February 2003 and traffic in the zone fell by about 18% in its first year."),
    "stockholm": ("Trängselskatt i Stockholm – Transportstyrelsen", "https://www.transportstyrelsen.se/sv/vagtrafik/fordon/skatter-och-avgifter/trangselskatt/",
                  "Stockholm made its congestion tax permanent in August 2007 after a 2006 trial cut traffic across the cordon by around 20%."),
    "goteborg": ("Göteborg congestion tax evaluation", "https://www.trafikverket.se/goteborg-trangselskatt-utvardering",
                 "Göteborg introduced its congestion tax on 1 January 2013; traffic over the cordon fell by roughly 10%."),
    "milan": ("Area C – Comune di Milano", "https://www.comune.milano.it/aree-tematiche/mobilita/area-c",
              "Area C replaced Ecopass in January 2012 and cut traffic entering the zone by about 30%."),
    "singapore": ("Electronic Road Pricing – Land Transport Authority", "https://www.lta.gov.sg/content/ltagov/en/getting_around/driving_in_singapore/erp.html",
                  "Singapore's Area Licensing Scheme of 1975 was replaced by Electronic Road Pricing in 1998."),
    "mta": ("Congestion Relief Zone – MTA", "https://www.mta.info/fares-tolls/tolls/congestion-relief-zone",
            "Congestion pricing in Manhattan began on January 5, 2025, charging most cars $9 at peak times."),
    "mta-results": ("Congestion pricing: the first months – MTA", "https://www.mta.info/news/congestion-pricing-results",
                    "About 1.5 million fewer vehicles entered the zone in the first three months, and travel times on bridges and tunnels improved."),
    "itf": ("Road pricing in European cities – ITF", "https://www.itf-oecd.org/road-pricing-european-cities",
            "Cities that priced congestion kept most of the first-year traffic reduction over the following decade."),
    # the comparison question (other providers cite some of the same pages)
    "na-catl": ("CATL unveils Naxtra sodium-ion battery", "https://www.catl.com/en/news/naxtra-sodium-ion#specs",
                "The second-generation sodium-ion cell reaches 175 Wh/kg and keeps over 90% of its capacity at -20 °C."),
    "na-iea": ("Grid-scale storage: technology assessment – IEA", "https://www.iea.org/reports/grid-scale-storage-assessment",
               "LFP remains the default chemistry for new grid-scale projects, with round-trip efficiency around 92%."),
    "na-hina": ("HiNa's 100 MWh sodium-ion storage station", "https://www.pv-magazine.com/2026/03/hina-100-mwh-sodium-ion",
                "The 100 MWh sodium-ion station in Hubei has run for a year with capacity fade within guidance."),
    "na-nrel": ("Sodium-ion batteries for stationary storage – NREL", "https://www.nrel.gov/storage/sodium-ion-stationary-assessment.html",
                "Sodium-ion could compete with LFP in stationary storage if lithium prices rise or cell production scales."),
    "london-later": ("London congestion charge: twenty years on", "https://www.centreforlondon.org/congestion-charge-20-years",
                     "Traffic speeds in central London have since fallen back as road space was given to buses, cycling and walking."),
}
AGES = {"tfl": "2 weeks ago", "stockholm": "March 3, 2025", "goteborg": None, "milan": "1 month ago",
        "singapore": None, "mta": "3 days ago", "mta-results": "April 9, 2025", "itf": None,
        "london-later": "February 17, 2023", "na-catl": "1 month ago", "na-iea": None,
        "na-hina": "2 months ago", "na-nrel": "January 14, 2026"}

SEARCHES = {
    "s1": ("cities congestion pricing since London 2003", ["tfl", "stockholm", "goteborg", "singapore"]),
    "s2": ("Milan Area C traffic reduction", ["milan", "itf"]),
    "s3": ("New York congestion pricing results 2025", ["mta", "mta-results", "london-later"]),
    "na1": ("sodium-ion grid storage vs LFP 2026", ["na-iea", "na-hina", "na-nrel"]),
    "na2": ("CATL Naxtra sodium-ion cold climate", ["na-catl"]),
}

RESEARCH = [
    ("thinking", "The user wants the cities that introduced congestion pricing after London, and what happened to traffic. I should search for the main schemes — Stockholm, Göteborg, Milan, Singapore (earlier), New York — and cite measured traffic changes."),
    ("text", "I'll look up the main congestion pricing schemes and their measured effects."),
    ("search", "s1"),
    ("text", "London's charge is the usual reference point: "),
    ("cite", "it started on 17 February 2003 and cut traffic in the zone by about 18% in its first year", ["tfl"]),
    ("text", ". Since then:\n\n- **Stockholm**: "),
    ("cite", "a 2006 trial cut traffic across the cordon by around 20%, and the tax became permanent in August 2007", ["stockholm"]),
    ("text", ".\n- **Göteborg**: "),
    ("cite", "the congestion tax began on 1 January 2013, and traffic over the cordon fell by roughly 10%", ["goteborg"]),
    ("text", ".\n\nLet me check Milan and New York."),
    ("search", "s2"),
    ("text", "- **Milan**: "),
    ("cite", "Area C replaced Ecopass in January 2012 and cut traffic entering the zone by about 30%", ["milan"]),
    ("text", "."),
    ("search-paused", "s3"),
]

CONTINUED = [
    ("result", "s3"),
    ("text", "- **New York**: "),
    ("cite", "Manhattan's congestion relief zone opened on January 5, 2025, charging most cars $9 at peak times", ["mta"]),
    ("text", ", and "),
    ("cite", "about 1.5 million fewer vehicles entered the zone in its first three months", ["mta-results"]),
    ("text", ".\n\n**What lasts**: "),
    ("cite", "cities that priced congestion kept most of their first-year traffic reduction", ["itf", "stockholm"]),
    ("text", ", though in London "),
    ("cite", "speeds fell back as road space went to buses, cycling and walking", ["london-later"]),
    ("text", ". Singapore, for the record, priced roads first — "),
    ("cite", "its Area Licensing Scheme dates from 1975", ["singapore"]),
    ("text", "."),
]

FOLLOW_UP = [
    ("search", "s3"),
    ("text", "In New York the first months went as planned: "),
    ("cite", "about 1.5 million fewer vehicles entered the zone in the first three months, and crossings got faster", ["mta-results"]),
    ("text", ". The toll itself is "),
    ("cite", "$9 for most cars at peak times", ["mta"]),
    ("text", "."),
]


SODIUM = [
    ("thinking", "The user asks how close sodium-ion is to displacing LFP in grid storage. I should find what grid projects use today, the largest sodium-ion deployments, and the newest cells, and cite each."),
    ("search", "na1"),
    ("text", "Not very close yet 🔋. "),
    ("cite", "LFP remains the default chemistry for new grid-scale projects, with round-trip efficiency around 92%", ["na-iea"]),
    ("text", ", and sodium-ion's best evidence is still a handful of projects: "),
    ("cite", "a 100 MWh station in Hubei has run for a year with capacity fade within guidance", ["na-hina"]),
    ("text", ".\n\n"),
    ("search", "na2"),
    ("text", "The cells are getting better: "),
    ("cite", "CATL's second-generation cell reaches 175 Wh/kg and keeps over 90% of its capacity at -20 °C", ["na-catl"]),
    ("text", ", which suits cold climates. Whether it displaces LFP depends on two things: "),
    ("cite", "a rise in lithium prices or much larger cell production", ["na-nrel"]),
    ("text", ". Until then, expect sodium-ion beside LFP rather than instead of it."),
]


class Stream:
    def __init__(self, name, message_id, input_tokens):
        self.name = name
        self.rng = random.Random(zlib.crc32(name.encode("utf-8")))
        self.frames = []
        self.index = 0
        self.answer = ""
        self.emit(120, {"type": "message_start", "message": {
            "model": MODEL, "id": message_id, "type": "message", "role": "assistant", "content": [],
            "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0, "output_tokens": 1, "service_tier": "standard"}}})

    def emit(self, delay, payload, event=None):
        self.frames.append((delay, event or payload["type"], compact(payload)))

    def block(self, start, deltas, pace):
        self.emit(self.rng.randint(60, 160), {"type": "content_block_start", "index": self.index,
                                              "content_block": start})
        for delta in deltas:
            self.emit(self.rng.randint(*pace), {"type": "content_block_delta", "index": self.index,
                                                "delta": delta})
            if self.rng.random() < 0.08:
                self.emit(0, {"type": "ping"})
        self.emit(self.rng.randint(10, 40), {"type": "content_block_stop", "index": self.index})
        self.index += 1

    def text(self, text, cites=()):
        chunks = chunk_text(text, self.rng, (1, 2, 3, 4), 0.1)
        deltas = [{"type": "citations_delta", "citation": citation(key)} for key in cites]
        deltas += [{"type": "text_delta", "text": c} for c in chunks]
        start = {"citations": [], "type": "text", "text": ""} if cites else {"type": "text", "text": ""}
        self.block(start, deltas, (30, 90))

    def thinking(self, text):
        chunks = chunk_text(text, self.rng, (3, 5, 8), 0.0)
        deltas = [{"type": "thinking_delta", "thinking": c} for c in chunks]
        deltas.append({"type": "signature_delta", "signature": "EqQBCkYIBxgCKkD" + "x" * 48})
        self.block({"type": "thinking", "thinking": "", "signature": ""}, deltas, (20, 60))

    def search(self, key):
        query = SEARCHES[key][0]
        raw = json.dumps({"query": query})
        parts = [""] + [raw[i:i + 7] for i in range(0, len(raw), 7)]
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in parts]
        self.block({"type": "server_tool_use", "id": tool_id(key), "name": "web_search", "input": {}},
                   deltas, (15, 40))

    def result(self, key):
        content = [{"type": "web_search_result", "title": PAGES[p][0], "url": PAGES[p][1],
                    "encrypted_content": "Eu" + zlib.crc32(p.encode()).to_bytes(4, "big").hex() * 8,
                    "page_age": AGES[p]} for p in SEARCHES[key][1]]
        self.emit(self.rng.randint(1200, 2200), {"type": "content_block_start", "index": self.index,
                                                 "content_block": {"type": "web_search_tool_result",
                                                                   "tool_use_id": tool_id(key),
                                                                   "content": content}})
        self.emit(10, {"type": "content_block_stop", "index": self.index})
        self.index += 1

    def play(self, script):
        for kind, *rest in script:
            if kind == "thinking":
                self.thinking(rest[0])
            elif kind == "text":
                self.text(rest[0])
            elif kind == "cite":
                self.text(rest[0], rest[1])
            elif kind == "search":
                self.search(rest[0])
                self.result(rest[0])
            elif kind == "search-paused":
                self.search(rest[0])
            elif kind == "result":
                self.result(rest[0])

    def end(self, stop_reason, output_tokens, searches):
        self.emit(80, {"type": "message_delta", "delta": {"stop_reason": stop_reason,
                                                          "stop_sequence": None},
                       "usage": {"input_tokens": 9000 + 4000 * searches, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": 0, "output_tokens": output_tokens,
                                 "server_tool_use": {"web_search_requests": searches}}})
        self.emit(10, {"type": "message_stop"})

    def write(self):
        out = []
        for delay, event, data in self.frames:
            assert "\n" not in data
            out.append(": delay=%d\nevent: %s\ndata: %s\n\n" % (delay, event, data))
        os.makedirs(OUT, exist_ok=True)
        with open(os.path.join(OUT, self.name), "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(out))
        return len(self.frames)


def tool_id(key):
    return "srvtoolu_01Demo" + key.upper() + "x" * 12


def citation(key):
    title, url, sentence = PAGES[key]
    return {"type": "web_search_result_location", "cited_text": sentence, "url": url, "title": title,
            "encrypted_index": "Eo8BCioIBxgC" + zlib.crc32(url.encode()).to_bytes(4, "big").hex()}


def main():
    index = []
    for name, message_id, script, stop, title, prompt in [
        ("congestion-pricing.sse", "msg_01DemoCongestionPricingA1", RESEARCH, "pause_turn",
         "Congestion pricing since London (paused)",
         "Which cities have rolled out congestion pricing since London, and what happened to traffic?"),
        ("congestion-pricing-continued.sse", "msg_01DemoCongestionPricingA2", CONTINUED, "end_turn",
         "Congestion pricing since London (continued)", "(the paused turn, continued)"),
        ("congestion-pricing-follow-up.sse", "msg_01DemoCongestionFollowUp1", FOLLOW_UP, "end_turn",
         "Follow-up: New York's first months", "How has New York's scheme done so far?"),
        ("sodium-ion-claude.sse", "msg_01DemoSodiumIonVsLfp01", SODIUM, "end_turn",
         "Sodium-ion vs LFP for grid storage (Claude)",
         "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?"),
    ]:
        stream = Stream(name, message_id, 2400)
        stream.play(script)
        searches = sum(1 for kind, *_ in script if kind.startswith("search"))
        stream.end(stop, 300 + 20 * len(script), searches)
        frames = stream.write()
        cites = sum(1 for kind, *_ in script if kind == "cite")
        index.append({"file": name, "title": title, "prompt": prompt, "id": message_id,
                      "model": MODEL, "stop_reason": stop, "frames": frames, "cited_blocks": cites})
    unpaused = [step for step in RESEARCH if step[0] != "search-paused"] + [("search", "s3")]
    unpaused += [step for step in CONTINUED if step[0] != "result"]
    stream = Stream("congestion-pricing-unpaused.sse", "msg_01DemoCongestionPricingA1", 2400)
    stream.play(unpaused)
    stream.end("end_turn", 600, 3)
    stream.write()
    with open(os.path.join(OUT, "index.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(index, f, ensure_ascii=False, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
