"""xAI Responses API demo scenarios (content only; see make_provider_recordings.py).

Answers are Markdown with citation markers ⟦alias⟧ (or ⟦a,b⟧) where the model writes its inline links
`[[N]](url)`; the generator numbers the URLs by first appearance and computes the code point spans.
"""

# alias -> URL.  X posts are cited from x_search results, web pages from web_search sources.
SOURCES = {
    "toyota": "https://global.toyota/en/newsroom/corporate/2026/solid-state-battery-pilot-line.html",
    "idemitsu": "https://asia.nikkei.com/business/automobiles/idemitsu-sulfide-electrolyte-plant-2026",
    "sdi": "https://www.samsungsdi.com/sdi-news/2026/asb-900wh-l-mass-production-plan.html",
    "qs": "https://ir.quantumscape.com/news-releases/2026/cobra-b-samples-higher-volume",
    "powerco": "https://www.handelsblatt.com/unternehmen/industrie/feststoffbatterie-powerco-quantumscape-lizenz/100219876.html",
    "catl": "https://www.reuters.com/business/autos-transportation/catl-plans-small-batch-solid-state-output-2027-2026-03-18/",
    "factorial": "https://factorialenergy.com/news/2026/mercedes-eqs-road-test-1200-km",
    "prologium": "https://prologium.com/news/2026/dunkirk-gigafactory-inorganic-electrolyte",
    "electrek": "https://electrek.co/2026/04/02/solid-state-battery-timeline-reality-check/",
    "x_engineer": "https://x.com/i/status/1911234567890123456",
    "x_investor": "https://x.com/i/status/1912345678901234567",
    "x_jp": "https://x.com/i/status/1913456789012345678",
    # consulted only (search results never cited)
    "bloomberg": "https://www.bloomberg.com/news/articles/2026-03-30/solid-state-batteries-hype-meets-factory-reality",
    "wikipedia": "https://en.wikipedia.org/wiki/Solid-state_battery",
    "idtechex": "https://www.idtechex.com/en/research-report/solid-state-and-polymer-batteries-2026-2036/1055",
    "insideevs": "https://insideevs.com/news/2026/solid-state-battery-roundup-april/",
    # annotated with an empty span (no inline position)
    "ft": "https://www.ft.com/content/2b7e4c1a-9d3f-4e8a-b6c5-1f0a9e8d7c6b",
    "x_korea": "https://x.com/i/status/1914567890123456789",
    # follow-up
    "shenxing": "https://www.catl.com/en/news/2026/shenxing-pro-energy-density.html",
    "teardown": "https://electrek.co/2026/02/11/4680-cell-teardown-energy-density/",
    "review": "https://www.nature.com/articles/s41560-026-01234-5",
    "x_cellguy": "https://x.com/i/status/1915678901234567890",
    "batterydesign": "https://www.batterydesign.net/solid-state-energy-density-2026/",
    "x_skeptic": "https://x.com/i/status/1916789012345678901",
    # the comparison question (other providers cite some of the same pages, linked their own way)
    "na_catl": "https://WWW.CATL.COM/en/news/naxtra-sodium-ion",
    "na_bnef": "https://about.bnef.com/insights/sodium-ion-cell-costs-2026?utm_source=x",
    "na_reuters": "https://www.reuters.com/business/energy/sodium-ion-storage-orders-2026-04-02/",
    "na_electrek": "https://electrek.co/2026/03/27/sodium-ion-home-storage-first-look/",
    "na_x_utility": "https://x.com/i/status/1917890123456789012",
    "na_x_cells": "https://x.com/i/status/1918901234567890123",
    "na_wiki": "https://en.wikipedia.org/wiki/Sodium-ion_battery",
    "na_ft": "https://www.ft.com/content/7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
}

RESEARCH = {
    "file": "solid-state-batteries.sse",
    "title": "Solid-state batteries: who is closest to mass production?",
    "prompt": "Which solid-state battery makers are closest to mass production, and what are people on X saying about it?",
    "response_id": "resp_demo_7f3a91c2e5b84d06",
    "model": "grok-4",
    "created_at": 1776412800,
    "steps": [
        ("think", "The user wants a status check on solid-state batteries: which makers are closest to "
                  "volume production, plus the mood on X. I should search the web for company timelines "
                  "(Toyota, Samsung SDI, QuantumScape, CATL) and then look at X posts for sentiment."),
        ("web", "solid-state battery mass production 2027 Toyota Samsung SDI QuantumScape",
         ["toyota", "sdi", "qs", "bloomberg", "wikipedia", "idemitsu"]),
        ("x", "x_keyword_search", {"query": "solid-state battery (QuantumScape OR Toyota) min_faves:50",
                                   "limit": 10, "mode": "Latest"}),
        ("web", "CATL solid-state battery small batch 2027 Factorial ProLogium Dunkirk",
         ["catl", "factorial", "prologium", "electrek", "idtechex", "powerco", "toyota"]),
        ("think", "Timelines differ a lot between pure sulfide cells and semi-solid designs; I should say "
                  "which is which. Japanese coverage of Idemitsu's electrolyte plant would confirm Toyota's plan."),
        ("x", "x_semantic_search", {"query": "are solid-state batteries finally close to production?",
                                    "limit": 10, "from_date": "2026-01-01"}),
        ("web", "全固体電池 量産 2027 出光 トヨタ", ["idemitsu", "toyota", "insideevs", "ft"]),
    ],
    "answer": """## Solid-state batteries: who is closest to mass production? 🔋

**Short answer:** nobody ships all-solid-state cells in volume cars yet, but a handful of groups are two to three years out, and the mood on X has moved from hype to cautious optimism.

### The front-runners

- **Toyota + Idemitsu (出光興産):** Toyota says its pilot line for sulfide-electrolyte cells is running and targets its first vehicles in 2027–28.⟦toyota⟧ Idemitsu is building the electrolyte plant that feeds it, sized for roughly 10 000 vehicles a year.⟦idemitsu⟧
- **Samsung SDI:** it keeps its 900 Wh/L all-solid-state cell on a 2027 mass-production plan, starting with premium EVs.⟦sdi⟧
- **QuantumScape:** the Cobra separator process moved B-samples into higher-volume shipments,⟦qs⟧ and PowerCo (Volkswagen) holds a licence to build up to 80 GWh a year.⟦powerco⟧
- **CATL:** more conservative; it plans small-batch output in 2027 and calls full scale "around 2030".⟦catl⟧

### Semi-solid and hybrid bets

Factorial's quasi-solid cells completed a 1 200 km road test in a Mercedes EQS,⟦factorial⟧ and ProLogium (輝能科技) is re-phasing its Dunkirk gigafactory around a “fully inorganic” electrolyte.⟦prologium⟧ These designs are easier to manufacture, which is why they may reach showrooms first.⟦electrek⟧

### What people on X are saying

The tone is careful rather than euphoric. A widely shared thread by a cell engineer argues that dendrites are tamed in the lab but not yet at factory yields,⟦x_engineer⟧ while investors point to QuantumScape's shipment numbers as the first hard data in years.⟦x_investor,qs⟧ Others — many posting in Japanese and Korean — remind everyone that Toyota has moved its dates before (“2020, then 2025, now 2027…”).⟦x_jp⟧

### Bottom line

| Company | Electrolyte | Volume target (company) |
|---|---|---|
| Toyota / Idemitsu | sulfide | 2027–28 |
| Samsung SDI | sulfide | 2027 |
| QuantumScape / PowerCo | oxide separator | licensed ramp from 2026 |
| CATL | sulfide, hybrid first | small batch 2027 |

Expect premium, low-volume models first; mainstream prices depend on electrolyte costs falling by an order of magnitude.⟦electrek,idemitsu⟧

_Demo recording: the companies are real, but every figure, date, quote and URL here is illustrative._""",
    "empty_spans": ["ft", "x_korea"],
    "usage": {"input_tokens": 18342, "cached_tokens": 4096, "output_tokens": 1187, "reasoning_tokens": 402},
}

FOLLOW_UP = {
    "file": "energy-density-follow-up.sse",
    "title": "Follow-up: solid-state vs lithium-ion energy density",
    "prompt": "How do their energy densities compare with today's best lithium-ion cells?",
    "response_id": "resp_demo_2c8e04b7a9d15f63",
    "previous_response_id": RESEARCH["response_id"],
    "model": "grok-4",
    "created_at": 1776413100,
    "steps": [
        ("think", "Follow-up on the same companies: compare claimed solid-state energy densities with "
                  "the best lithium-ion cells shipping today. I need cell-level Wh/kg and Wh/L figures."),
        ("web", "solid-state battery energy density Wh/kg Wh/L 2026 vs lithium-ion 4680 Shenxing",
         ["sdi", "qs", "shenxing", "teardown", "review", "batterydesign"]),
        ("x", "x_keyword_search", {"query": "solid-state energy density Wh/kg claims", "limit": 10,
                                   "mode": "Top"}),
        ("web", "Toyota solid-state battery range 1000 km cell energy density",
         ["toyota", "review", "batterydesign"]),
    ],
    "answer": """## Energy density: solid-state claims vs today's lithium-ion 📏

**In one line:** the announced solid-state cells promise roughly 30–60 % more energy per litre than the best lithium-ion cells in cars today, but those are sample-cell figures, not pack numbers.

### Today's best lithium-ion (shipping)

- **CATL Shenxing Pro (LFP):** about 205 Wh/kg at cell level, chosen for cost and cycle life rather than density.⟦shenxing⟧
- **High-nickel cylindrical cells (4680 class):** teardowns put them near 270–300 Wh/kg and 650–700 Wh/L.⟦teardown⟧

### Solid-state (announced, pre-production)

- **Samsung SDI:** 900 Wh/L for its all-solid-state cell, about a third more than its current prismatic cells.⟦sdi⟧
- **QuantumScape:** a lithium-metal anode formed in place lets its cells reach about 800–850 Wh/L in B-samples.⟦qs⟧
- **Toyota:** it talks about range (“around 1 000 km”) rather than publishing cell-level densities.⟦toyota⟧

### Why the gap may shrink in practice

A recent review notes that pack-level gains are smaller than cell-level ones, because solid-state cells need stack pressure, heavier housings and careful thermal control.⟦review⟧ On X, cell engineers make the same point more bluntly: “compare packs, not press releases”.⟦x_cellguy⟧ Meanwhile lithium-ion keeps improving by about 5–7 % a year, so the target moves.⟦teardown,review⟧

### Volume matters as much as weight

Density per litre decides how much energy fits under the floor, while density per kilogram decides how heavy the car gets. Solid-state designs gain most on volume, which helps compact cars and motorbikes more than large SUVs.⟦review⟧

**Bottom line:** expect the first solid-state cars to offer noticeably more range per kilogram, but the headline 50 % will likely land closer to 20–30 % at pack level.⟦review⟧

_Demo recording: the companies are real, but every figure, date, quote and URL here is illustrative._""",
    "empty_spans": ["x_skeptic"],
    "usage": {"input_tokens": 21904, "cached_tokens": 17920, "output_tokens": 842, "reasoning_tokens": 188},
}

COMPARISON = {
    "file": "sodium-ion-grok.sse",
    "title": "Sodium-ion vs LFP for grid storage (Grok)",
    "prompt": "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
    "response_id": "resp_demo_9d4b27e1c6a03f58",
    "model": "grok-4",
    "created_at": 1776414000,
    "steps": [
        ("think", "The user asks whether sodium-ion is about to displace LFP in grid storage. I need "
                  "cell costs, real orders and products, and what storage engineers say on X."),
        ("web", "sodium-ion grid storage 2026 cost per kWh vs LFP orders",
         ["na_bnef", "na_reuters", "na_wiki", "na_catl"]),
        ("x", "x_keyword_search", {"query": "sodium-ion storage LFP min_faves:20", "limit": 10,
                                   "mode": "Latest"}),
        ("web", "CATL Naxtra sodium-ion storage cold climate home battery", ["na_catl", "na_electrek", "na_ft"]),
    ],
    "answer": """## Sodium-ion vs LFP for grid storage ⚡🔋

**Short answer:** close on paper, far in practice. Sodium-ion cells are within a few dollars per kilowatt-hour of lithium iron phosphate (LFP), but LFP still takes almost every grid tender, and it will keep doing so while lithium stays cheap.

### Cost

Analysts put sodium-ion cells at roughly $58/kWh this year against about $53/kWh for LFP cells, so the gap has nearly closed without reversing.⟦na_bnef⟧ The price of lithium carbonate decides the rest: sodium-ion's whole argument is insulation from it, and that argument is weak while lithium is cheap.⟦na_bnef⟧

### Orders and products

- **Utility orders:** Chinese utilities ordered around 6 GWh of sodium-ion storage in the first quarter, a small slice next to LFP.⟦na_reuters⟧
- **Cells:** CATL's Naxtra cell keeps most of its capacity at −20 °C, which matters for storage in cold regions.⟦na_catl⟧
- **Home storage:** the first sodium-ion home batteries reached reviewers this spring, with modest capacity and a low price.⟦na_electrek⟧

### What people on X are saying

Storage engineers are more interested than excited. One utility planner wrote that sodium-ion is "the hedge we buy, not the default we specify",⟦na_x_utility⟧ and a widely shared thread from a cell designer argues that round-trip efficiency, not cost, is what keeps LFP ahead in daily cycling.⟦na_x_cells⟧ Several replies point back to the same order numbers: real, but small.⟦na_reuters⟧

### Bottom line

Sodium-ion is a credible second chemistry for stationary storage, first in cold climates and in projects that want a lithium hedge. Displacing LFP would take a lithium price spike or much larger factories, and neither is visible yet.⟦na_bnef,na_catl⟧

_Demo recording: the companies are real, but every figure, date, quote and URL here is illustrative._""",
    "empty_spans": ["na_ft"],
    "usage": {"input_tokens": 15873, "cached_tokens": 2048, "output_tokens": 734, "reasoning_tokens": 211},
}

SCENARIOS = [RESEARCH, FOLLOW_UP, COMPARISON]
