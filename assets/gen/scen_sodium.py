"""Scenario content: the comparison question every demo provider answers — how close grid-scale
sodium-ion storage is to displacing lithium iron phosphate — as the Bigdata.com Research Agent
answers it.  Its sources overlap OpenAI's and Perplexity's answers to the same question (CATL,
pv magazine, Reuters; linked with tracking parameters some of the time) and add its own
(an earnings-call transcript without a URL, a lithium price series).
Synthetic: companies are real, figures, quotes, URLs and identifiers are illustrative."""
from make_recordings import bigdata, external, source_library

CHAT_ID = "demo-chat-2d6b8e41-sodium-ion"
PROMPT = "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?"

SOURCES = source_library(
    external("catl", "CATL unveils Naxtra sodium-ion battery", "2026-04-21T03:00:00Z",
             "CATL's second-generation sodium-ion cell reaches 175 Wh/kg and keeps more than 90% of its capacity "
             "at -20 °C; mass production for storage customers starts in the second half.", 0.91, 0.40, "CATL",
             "https://www.catl.com/en/news/naxtra-sodium-ion?utm_source=newsletter&utm_medium=email"),
    external("pvmag", "HiNa's 100 MWh sodium-ion storage station completes first year", "2026-03-18T08:00:00Z",
             "The 100 MWh station in Hubei has run for a year with capacity fade within its guidance, the "
             "operator says.", 0.88, 0.30, "pv magazine",
             "https://www.pv-magazine.com/2026/03/hina-100-mwh-sodium-ion"),
    external("reuters", "Sodium-ion storage orders jump as Chinese utilities hedge lithium risk",
             "2026-04-02T06:10:00Z",
             "Chinese utilities ordered about 6 GWh of sodium-ion storage in the first quarter, against about "
             "140 GWh of LFP, tender data show.", 0.86, 0.20, "Reuters",
             "https://www.reuters.com/business/energy/sodium-ion-storage-orders-2026-04-02/?utm_medium=rss"),
    bigdata("call", "Contemporary Amperex Technology Co Ltd (300750) Q1 2026 Earnings Call Transcript",
            "Bigdata.com Transcripts", "2026-04-24T09:00:00Z",
            chunks=[
                (4, "Chairman: Sodium-ion will not replace LFP. It will sit beside it, in cold regions and in "
                    "projects where customers want a hedge against lithium prices.", 0.90, 0.15),
                (7, "We are planning sodium-ion capacity in the tens of gigawatt-hours, not hundreds.", 0.84, 0.0),
            ]),
    bigdata("lithium", "Lithium carbonate price, China spot, April 2026", "Fastmarkets", "2026-04-30T12:00:00Z",
            url="https://www.fastmarkets.com/lithium-carbonate-price-2026",
            chunks=[
                (1, "Battery-grade lithium carbonate averaged about CNY 78,000/t in April, far below the 2022 "
                    "peak of CNY 580,000/t.", 0.87, -0.10),
            ]),
    # returned by a search but not cited
    bigdata("byd", "BYD starts sodium-ion storage line in Xuzhou", "Nikkei Asia", "2026-02-11T02:00:00Z",
            url="https://asia.nikkei.com/business/byd-sodium-ion-storage-xuzhou",
            chunks=[(1, "BYD's Xuzhou plant will make sodium-ion cells for storage from 2026.", 0.70, 0.10)]),
)

COST_MODEL = ("| chemistry | cell $/kWh (2026) | round-trip efficiency |\n|---|---|---|\n"
              "| sodium-ion | 57 | 88% |\n| LFP | 52 | 92% |")

ANSWER = (
    "# Sodium-ion vs LFP for grid storage ⚡️🔋\n\n"
    "**Not yet.** Sodium-ion is a credible second chemistry for stationary storage, but LFP still wins "
    "almost every tender on cost and track record.\n\n"
    "## Where sodium-ion is\n\n"
    "- **Product:** ⟦src:catl⟧CATL's second-generation cell reaches 175 Wh/kg and keeps more than 90% of its "
    "capacity at -20 °C⟦/⟧, with storage deliveries from the second half of 2026.\n"
    "- **Field record:** ⟦src:pvmag⟧HiNa's 100 MWh station in Hubei has completed a year with fade within "
    "guidance⟦/⟧, the largest operating project.\n"
    "- **Orders:** ⟦src:reuters⟧Chinese utilities ordered about 6 GWh of sodium-ion storage in the first "
    "quarter, against about 140 GWh of LFP⟦/⟧, so sodium-ion is roughly 4% of new orders.\n\n"
    "## Why LFP keeps its lead\n\n"
    "- **Cost:** ⟦tool:cost⟧our cost model puts sodium-ion cells at about $57/kWh against $52/kWh for LFP⟦/⟧, "
    "and ⟦tool:cost⟧round-trip efficiency is about 88% against 92%⟦/⟧.\n"
    "- **Cheap lithium:** ⟦src:lithium⟧lithium carbonate averaged about CNY 78,000/t in April, far below the "
    "2022 peak⟦/⟧, which removes sodium-ion's main selling point.\n"
    "- **The maker's own view:** ⟦src:call⟧CATL's chairman said sodium-ion will sit beside LFP rather than "
    "replace it⟦/⟧, and ⟦src:call⟧the company plans capacity in the tens of gigawatt-hours, not hundreds⟦/⟧.\n\n"
    "## What would change it\n\n"
    "A lithium price spike, or cold-climate projects where ⟦src:catl⟧capacity at -20 °C⟦/⟧ matters, would "
    "move share; ⟦src:reuters⟧utilities already use it to hedge lithium risk⟦/⟧.\n\n"
    "*Illustrative demo content, not market data.*"
)


def build(Recorder):
    r = Recorder("sodium-ion-research", SOURCES, chat_id=CHAT_ID)
    r.plan("Sodium-ion vs LFP in grid storage", [
        "Find the latest sodium-ion products and deployments",
        "Compare costs and efficiency with LFP",
        "Check lithium prices and the makers' own outlook",
    ])
    r.plan(statuses="INN")
    r.think("The question is about displacement, so I need deployments and order share, not only lab "
            "figures. Start with products and operating projects, then cost.")
    r.search("s1", "sodium-ion grid storage deployment 2026 orders utilities",
             ["catl", "pvmag", "reuters", "byd"])
    r.plan(statuses="CIN")
    r.think("Orders are about 4% of LFP's. For cost I'll build a small comparison from published cell "
            "prices and efficiencies.")
    r.tool("cost", "python_code_execution", {"task": "Compare cell cost and round-trip efficiency"},
           "Python code execution: sodium-ion vs LFP cost model", COST_MODEL)
    r.plan(statuses="CCI")
    r.search("s2", "CATL sodium-ion outlook earnings call; lithium carbonate price April 2026",
             ["call", "lithium"])
    r.tool("cal", "get_earnings_calendar", {"tickers": ["300750.SZ"], "start_date": "2026-07-01",
                                            "end_date": "2026-08-31"},
           "CATL earnings calendar", "| company | date |\n|---|---|\n| CATL | 2026-07-30 |")
    r.plan(statuses="CCC")
    r.answer(ANSWER, message_id="ans-1", batches=3)
    r.complete([("base", (41230, 2410, 8192))], checkpoint_id="ckpt-demo-sodium-0001")
    return r, {"title": "Sodium-ion vs LFP for grid storage", "prompt": PROMPT, "chat_id": CHAT_ID,
               "research_effort": "standard", "checkpoint_id": "ckpt-demo-sodium-0001"}
