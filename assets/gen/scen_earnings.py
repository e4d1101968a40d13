"""Scenario content: NVIDIA earnings deep dive, its follow-up turn (AMD comparison) and a
Workflows "earnings brief" run.  Synthetic: companies are real, figures, quotes, URLs and
identifiers are illustrative.  Citation markers: see make_recordings.py."""
from make_recordings import bigdata, external, source_library

CHAT_ID = "demo-chat-4f7d2c9a-nvda-earnings"
NVDA = {"entity_id": "D8442A", "ticker": "NVDA"}
AMD = {"entity_id": "6A4C1E", "ticker": "AMD"}


def period(start, end):
    return {"start": start + "T00:00:00Z", "end": end + "T23:59:59Z"}


def entity_filter(*ids, start, end):
    return {"entities": {"any_of": [{"id": i} for i in ids]}, "period": period(start, end)}


SOURCES = source_library(
    # ---------------------------------------------------------------- NVIDIA, Q1 FY2027
    bigdata("nv_pr", "NVIDIA Announces Financial Results for First Quarter Fiscal 2027", "NVIDIA Newsroom",
            "2026-05-27T20:20:00Z",
            url="https://nvidianews.nvidia.com/news/nvidia-announces-financial-results-for-first-quarter-fiscal-2027",
            chunks=[
                (1, "NVIDIA today reported revenue for the first quarter ended April 26, 2026, of $73.2 billion, "
                    "up 10% from the previous quarter and up 66% from a year ago.", 0.96, 0.62),
                (2, "GAAP and non-GAAP gross margins were 74.9% and 75.1%, respectively. GAAP and non-GAAP "
                    "earnings per diluted share were $1.71 and $1.75, respectively.", 0.93, 0.45),
                (4, "Gaming first-quarter revenue was $4.5 billion, up 20% from a year ago.", 0.71, 0.30),
                (6, "Non-GAAP operating expenses were $4.9 billion. During the first quarter, NVIDIA returned "
                    "$15.1 billion to shareholders in the form of shares repurchased and cash dividends.", 0.82, 0.20),
                (7, "Outlook for the second quarter of fiscal 2027: revenue is expected to be $80.0 billion, plus or "
                    "minus 2%. GAAP and non-GAAP gross margins are expected to be 74.8% and 75.0%, respectively, "
                    "plus or minus 50 basis points.", 0.95, 0.50),
            ]),
    bigdata("nv_10q", "NVIDIA Corp — Form 10-Q for the quarterly period ended April 26, 2026", "SEC EDGAR",
            "2026-05-27T20:35:00Z",
            url="https://www.sec.gov/Archives/edgar/data/1045810/000104581026000052/nvda-20260426.htm",
            chunks=[
                (12, "Data Center revenue was $66.8 billion, up 71% from a year ago. Data Center compute revenue was "
                     "$57.4 billion and networking revenue was $9.4 billion, up 90% from a year ago, driven by the "
                     "growth of Spectrum-X Ethernet and NVLink switch systems.", 0.94, 0.55),
                (15, "Gross margin for the first quarter of fiscal year 2026 included a $4.5 billion charge associated "
                     "with H20 excess inventory and purchase obligations; excluding this charge, non-GAAP gross margin "
                     "would have been 71.3%.", 0.85, -0.20),
                (23, "As of April 26, 2026, we had outstanding inventory purchase and long-term supply and capacity "
                     "obligations totaling $58.6 billion.", 0.88, 0.05),
            ]),
    bigdata("nv_call", "NVIDIA Corp (NVDA) Q1 FY2027 Earnings Call Transcript", "Bigdata.com Transcripts",
            "2026-05-27T21:00:00Z", rank=1,
            chunks=[
                (8, "CFO: Large cloud service providers represented roughly 50% of our Data Center revenue this "
                    "quarter, with sovereign, enterprise and AI-native customers making up the rest.", 0.86, 0.30),
                (14, "CFO: Our outlook does not assume any data center compute revenue from China. We continue to "
                     "engage with the U.S. government on H20 licensing.", 0.90, -0.10),
                (19, "CEO: Vera Rubin is in full production with our partners and remains on track for production "
                     "shipments in the second half of calendar 2026. Demand continues to exceed supply.", 0.93, 0.60),
            ]),
    external("nv_reuters", "Nvidia forecasts second-quarter revenue above estimates as AI spending holds up",
             "2026-05-27T20:48:00Z",
             "Nvidia forecast second-quarter revenue of $80 billion, plus or minus 2%, above analysts' average "
             "estimate of $77.51 billion, according to data compiled by LSEG. Shares rose about 3% in extended "
             "trading.", 0.89, 0.48, "Reuters",
             "https://www.reuters.com/technology/nvidia-forecasts-second-quarter-revenue-above-estimates-2026-05-27/"),
    bigdata("nv_bbg", "Nvidia Sales Forecast Tops Estimates as Rubin Ramp Nears", "Bloomberg", "2026-05-27T21:15:00Z",
            url="https://www.bloomberg.com/news/articles/2026-05-27/nvidia-sales-forecast-tops-estimates-as-rubin-ramp-nears",
            rank=2,
            chunks=[
                (3, "Analysts said the forecast eased concern that customers would pause orders ahead of the Rubin "
                    "transition, the kind of air pocket that has hit chipmakers during past product changes.",
                 0.81, 0.35),
            ]),
    external("nv_ft", "Nvidia's margins hold at 75% as Blackwell Ultra ships in volume", "2026-05-28T04:00:00Z",
             "Blackwell Ultra systems made up about two-thirds of Blackwell revenue in the quarter, and the company "
             "said manufacturing yields on its rack-scale NVL72 systems had normalised.", 0.84, 0.40,
             "Financial Times", "https://www.ft.com/content/3f1c2a9e-6b0d-4c51-9d8e-2a7b4e5f9c10"),
    external("nv_hb", "Nvidia: Europas KI-Fabriken werden zum Wachstumstreiber", "2026-05-28T05:30:00Z",
             "Souveräne KI-Projekte in Europa – etwa die Industrial AI Cloud der Deutschen Telekom in München mit "
             "einem Volumen von rund einer Milliarde Euro – tragen einen wachsenden Teil zum Rechenzentrumsgeschäft "
             "bei, sagt Fondsmanager Jonas Müller.", 0.77, 0.42, "Handelsblatt",
             "https://www.handelsblatt.com/technik/it-internet/nvidia-europas-ki-fabriken-werden-zum-wachstumstreiber/100213477.html"),
    bigdata("nikkei_cowos", "TSMC、先端パッケージ「CoWoS」の生産能力を26年末までに倍増へ　エヌビディア向けが過半", "Nikkei",
            "2026-05-18T09:30:00Z", url="https://www.nikkei.com/article/DGXZQOGM18A0O0Y6A510C2000000/", rank=2,
            chunks=[
                (2, "台湾積体電路製造（TSMC）は先端パッケージ技術「CoWoS」の月産能力を2026年末までに25年末比で約2倍に"
                    "引き上げる。関係者によると、米エヌビディア向けが全体の6割程度を占める見通しだ。", 0.87, 0.40),
            ]),
    bigdata("hynix", "SK hynix says 2026 HBM supply sold out, HBM4 mass production under way", "Yonhap News Agency",
            "2026-04-23T06:10:00Z", rank=3,
            chunks=[
                (1, "SK hynix said its high-bandwidth memory supply for 2026, including HBM4 for next-generation AI "
                    "accelerators, has been fully booked by customers, and that HBM4 mass production is under way.",
                 0.83, 0.50),
            ]),
    # returned by searches but not cited
    external("nv_preview", "What to watch when Nvidia reports first-quarter earnings", "2026-05-26T12:00:00Z",
             "Investors will focus on the gross-margin outlook and any update on the timing of the Rubin platform.",
             0.55, 0.05, "MarketWatch",
             "https://www.marketwatch.com/story/what-to-watch-when-nvidia-reports-first-quarter-earnings-2026-05-26"),
    bigdata("tsmc_apr", "TSMC April revenue rises 38% year on year on AI demand", "Focus Taiwan", "2026-05-10T08:05:00Z",
            url="https://focustaiwan.tw/business/202605100012", rank=3,
            chunks=[(1, "Taiwan Semiconductor Manufacturing Co. reported April consolidated revenue up 38% from a "
                        "year earlier, citing demand for AI accelerators.", 0.58, 0.40)]),
    # ---------------------------------------------------------------- AMD, Q1 2026 (follow-up turn)
    bigdata("amd_pr", "AMD Reports First Quarter 2026 Financial Results", "AMD Investor Relations",
            "2026-05-05T20:05:00Z",
            url="https://ir.amd.com/news-events/press-releases/detail/1290/amd-reports-first-quarter-2026-financial-results",
            chunks=[
                (1, "First quarter revenue was a record $10.3 billion, up 38% year-over-year. Non-GAAP gross margin "
                    "was 55.0%.", 0.95, 0.55),
                (3, "Data Center segment revenue was a record $5.6 billion, up 53% year-over-year, driven by strong "
                    "demand for AMD Instinct MI355 GPUs and 5th Gen AMD EPYC processors.", 0.94, 0.60),
                (6, "For the second quarter of 2026, AMD expects revenue to be approximately $11.2 billion, plus or "
                    "minus $300 million, and non-GAAP gross margin to be approximately 55.5%.", 0.93, 0.45),
            ]),
    bigdata("amd_10q", "Advanced Micro Devices, Inc. — Form 10-Q for the quarterly period ended March 28, 2026",
            "SEC EDGAR", "2026-05-06T21:10:00Z",
            url="https://www.sec.gov/Archives/edgar/data/2488/000000248826000031/amd-20260328.htm",
            chunks=[
                (9, "Data Center segment operating income was $1.6 billion, or 29% of segment revenue, compared with "
                    "$932 million a year ago.", 0.80, 0.30),
            ]),
    bigdata("amd_call", "Advanced Micro Devices (AMD) Q1 2026 Earnings Call Transcript", "Bigdata.com Transcripts",
            "2026-05-05T21:30:00Z",
            chunks=[
                (7, "CEO: We expect Data Center segment revenue to grow by a strong double-digit percentage "
                    "sequentially in the second quarter, led by Instinct MI355 and server CPUs.", 0.91, 0.50),
                (12, "CEO: MI450 and our Helios rack-scale platform remain on track to launch in the third quarter, "
                     "with the first gigawatt of the OpenAI deployment beginning in the second half of 2026.",
                 0.90, 0.55),
            ]),
    external("amd_reuters", "AMD forecasts second-quarter revenue above estimates on AI chip demand",
             "2026-05-05T20:30:00Z",
             "AMD forecast second-quarter revenue of about $11.2 billion, plus or minus $300 million, compared with "
             "analysts' average estimate of $10.9 billion, according to LSEG data.", 0.88, 0.40, "Reuters",
             "https://www.reuters.com/technology/amd-forecasts-second-quarter-revenue-above-estimates-2026-05-05/"),
    external("lesechos", "Puces pour l'IA : AMD grignote du terrain face à Nvidia", "2026-05-06T06:00:00Z",
             "Grâce à l'accord avec OpenAI et à ses racks Helios, AMD espère capter une part à deux chiffres du marché "
             "des accélérateurs d'IA d'ici à 2027, un marché que Nvidia domine encore à plus de 80 %.", 0.79, 0.25,
             "Les Echos", "https://www.lesechos.fr/tech-medias/hightech/puces-pour-lia-amd-grignote-du-terrain-face-a-nvidia-2212345"),
    bigdata("nikkei_amd", "AMD、次世代AI半導体「MI450」をTSMCの2ナノで量産　年後半に出荷", "Nikkei",
            "2026-05-08T03:00:00Z", url="https://www.nikkei.com/article/DGXZQOGN07E2X0X00C26A5000000/", rank=2,
            name_key="srcName",  # older API spelling, kept on purpose
            chunks=[
                (1, "米AMDは次世代AI半導体「MI450」を台湾積体電路製造（TSMC）の2ナノメートル世代の技術で量産する。"
                    "2026年後半に出荷を始める。", 0.84, 0.35),
            ]),
    bigdata("amd_bbg", "AMD's Helios Racks Face First Big Test as OpenAI Deployment Nears", "Bloomberg",
            "2026-05-06T14:00:00Z",
            url="https://www.bloomberg.com/news/articles/2026-05-06/amd-s-helios-racks-face-first-big-test", rank=2,
            chunks=[
                (4, "Analysts caution that AMD's 2026 data center GPU revenue depends heavily on a smooth Helios ramp "
                    "in the fourth quarter; any slip would push revenue into 2027.", 0.80, -0.15),
            ]),
    external("amd_ft", "AMD sets aggressive data-centre targets at investor day", "2025-11-12T09:00:00Z",
             "AMD said it expected its data-centre business to grow at a compound annual rate of more than 60 per "
             "cent over the next three to five years, with data-centre AI revenue growing at more than 80 per cent "
             "a year.", 0.82, 0.45, "Financial Times",
             "https://www.ft.com/content/8b2e6d14-0c7a-4f3e-a1d2-5e9c7b0a4f21"),
)

NV_CALENDAR = """**NVIDIA Corp (NVDA) — corporate calendar**

| Date | Event | Period |
|---|---|---|
| 2026-05-27 | Q1 FY2027 results (reported, after market close) | quarter ended 2026-04-26 |
| 2026-06-24 | Annual meeting of stockholders | — |
| 2026-08-26 | Q2 FY2027 results (estimated) | quarter ending 2026-07-26 |"""

NV_TEARSHEET = """**NVIDIA Corp (NVDA) · NASDAQ** — as of 2026-05-28 14:30 UTC

| Metric | Value |
|---|---|
| Last price | $212.38 (+3.1% on the day) |
| Market cap | $5.17T |
| P/E (forward, NTM) | 28.1× |
| EV / sales (NTM) | 16.4× |
| 52-week range | $129.95 – $224.10 |
| Analyst consensus | Buy (58 of 64) |"""

DEEP_DIVE_PROMPT = ("Give me a deep dive on NVIDIA's latest quarterly earnings: revenue mix, margins, guidance "
                    "and what management said about supply.")

DEEP_DIVE_ANSWER = """## 📈 NVIDIA Q1 FY2027 — at a glance

NVIDIA opened fiscal 2027 with another record quarter. ⟦src:nv_pr⟧Revenue reached **$73.2 billion**, up 10% sequentially and 66% year on year⟦/⟧, and ⟦src:nv_pr⟧non-GAAP EPS came in at **$1.75**⟦/⟧. The bigger story is the outlook: ⟦src:nv_reuters⟧the $80.0 billion Q2 revenue guide sits about $2.5 billion above the LSEG consensus⟦/⟧.

## Revenue mix

Data Center is now more than nine-tenths of the business.

| Segment | Q1 FY27 | YoY | Share |
|---|---:|---:|---:|
| Data Center | $66.8B | +71% | 91% |
| Gaming | $4.5B | +20% | 6% |
| Professional Visualization | $0.8B | +57% | 1% |
| Automotive & Robotics | $0.7B | +23% | 1% |
| OEM & Other | $0.4B | n/m | 1% |
| **Total** | **$73.2B** | **+66%** | 100% |

- ⟦src:nv_10q⟧**Compute** revenue was $57.4 billion and **networking** $9.4 billion⟦/⟧; ⟦src:nv_10q⟧networking grew 90% year on year on Spectrum-X Ethernet and NVLink switch systems⟦/⟧.
- ⟦src:nv_call⟧Large cloud providers accounted for roughly half of Data Center revenue⟦/⟧, while ⟦src:nv_hb⟧sovereign AI projects in Europe — such as Deutsche Telekom's €1 billion Industrial AI Cloud in München — are a growing contributor⟦/⟧.
- ⟦src:nv_pr⟧Gaming rose 20% year on year to $4.5 billion⟦/⟧, helped by RTX 50-series demand.

## Margins and profitability

1. **Gross margin:** ⟦src:nv_pr⟧non-GAAP gross margin was 75.1% (GAAP 74.9%)⟦/⟧, against ⟦src:nv_10q⟧71.3% a year earlier once the $4.5 billion H20 inventory charge is excluded⟦/⟧.
2. **Product mix:** ⟦src:nv_ft⟧Blackwell Ultra made up about two-thirds of Blackwell revenue, and yields on the rack-scale NVL72 have normalised⟦/⟧.
3. **Operating costs:** ⟦src:nv_pr⟧non-GAAP operating expenses rose to $4.9 billion⟦/⟧ as engineering spend for the Rubin launch ramps.
4. **Cash return:** ⟦src:nv_pr⟧NVIDIA returned $15.1 billion to shareholders through buybacks and dividends⟦/⟧.

## Guidance for Q2 FY27

- ⟦src:nv_pr⟧Revenue is expected to be **$80.0 billion, plus or minus 2%**, with non-GAAP gross margin of 75.0% ± 50 bp⟦/⟧.
- ⟦src:nv_call⟧The outlook assumes no data-center compute revenue from China⟦/⟧, so any H20 licences would be upside.
- ⟦src:nv_bbg⟧Analysts read the guide as evidence that the move from Blackwell to Rubin will not open an "air pocket" in orders⟦/⟧.

## Supply: still the binding constraint

Management repeated that demand exceeds supply. ⟦src:nv_call⟧Vera Rubin remains on track for production shipments in the second half of calendar 2026⟦/⟧, and ⟦src:nv_10q⟧supply and capacity obligations rose to $58.6 billion⟦/⟧ — NVIDIA is locking in capacity early.

- **Packaging:** ⟦src:nikkei_cowos⟧TSMC plans to roughly double CoWoS capacity by the end of 2026, with NVIDIA expected to take about 60% of it⟦/⟧.
- **Memory:** ⟦src:hynix⟧SK hynix says its 2026 HBM supply, including HBM4, is fully booked⟦/⟧.
- **Risk:** advanced packaging remains concentrated at one supplier, so any TSMC hiccup would cap shipments.

## Market reaction and what's next

⟦src:nv_reuters⟧The stock rose about 3% in extended trading⟦/⟧. ⟦tool:tear⟧Shares now trade around $212, a market value of about $5.2 trillion and roughly 28 times forward earnings⟦/⟧. ⟦tool:cal⟧The next report is expected on **August 26, 2026**⟦/⟧, when investors will look for the first Rubin revenue.

📌 **Bottom line:** growth is still supply-gated, margins are back in the mid-70s and the guide implies another ~$7 billion of sequential growth. Watch CoWoS and HBM4 availability, China export policy and hyperscaler capex.

_Offline demo: a recorded, synthetic session — figures are illustrative._"""

STRUCTURED_SCHEMA = {
    "type": "object",
    "properties": {
        "company": {"type": "string"},
        "ticker": {"type": "string"},
        "fiscal_period": {"type": "string"},
        "revenue_usd_bn": {"type": "number"},
        "revenue_growth_yoy_pct": {"type": "number"},
        "data_center_revenue_usd_bn": {"type": "number"},
        "gross_margin_non_gaap_pct": {"type": "number"},
        "eps_non_gaap_usd": {"type": "number"},
        "guidance": {
            "type": "object",
            "properties": {
                "period": {"type": "string"},
                "revenue_usd_bn": {"type": "number"},
                "revenue_tolerance_pct": {"type": "number"},
                "gross_margin_non_gaap_pct": {"type": "number"},
            },
            "required": ["period", "revenue_usd_bn"],
        },
        "key_risks": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["company", "ticker", "fiscal_period", "revenue_usd_bn", "guidance"],
}

STRUCTURED_CONTENT = {
    "company": "NVIDIA Corp",
    "ticker": "NVDA",
    "fiscal_period": "Q1 FY2027",
    "revenue_usd_bn": 73.2,
    "revenue_growth_yoy_pct": 66,
    "data_center_revenue_usd_bn": 66.8,
    "gross_margin_non_gaap_pct": 75.1,
    "eps_non_gaap_usd": 1.75,
    "guidance": {"period": "Q2 FY2027", "revenue_usd_bn": 80.0, "revenue_tolerance_pct": 2,
                 "gross_margin_non_gaap_pct": 75.0},
    "key_risks": ["CoWoS and HBM4 supply", "China export licensing", "Hyperscaler capex cycle"],
}


# --------------------------------------------------------------------------- charts (deep dive)

SEGMENTS = [("Data Center", 66.8), ("Gaming", 4.5), ("Professional Visualization", 0.8),
            ("Automotive & Robotics", 0.7), ("OEM & Other", 0.4)]
SEGMENT_SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "title": "Revenue by segment, Q1 FY2027",
    "data": {"values": [{"segment": n, "revenue_usd_bn": v} for n, v in SEGMENTS]},
    "mark": "bar",
    "encoding": {
        "y": {"field": "segment", "type": "nominal", "sort": "-x", "title": "Segment"},
        "x": {"field": "revenue_usd_bn", "type": "quantitative", "title": "Revenue ($B)"},
        "tooltip": [{"field": "segment"}, {"field": "revenue_usd_bn", "format": ".1f"}],
    },
}
QUARTERS = [("Q1 FY26", 44.1, 71.3), ("Q2 FY26", 46.7, 72.7), ("Q3 FY26", 57.0, 73.6),
            ("Q4 FY26", 66.5, 75.0), ("Q1 FY27", 73.2, 75.1)]
TREND_SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "title": "Quarterly revenue and non-GAAP gross margin",
    "data": {"values": [{"quarter": q, "revenue_usd_bn": r, "gross_margin_pct": m} for q, r, m in QUARTERS]},
    "encoding": {"x": {"field": "quarter", "type": "ordinal", "sort": None, "title": "Fiscal quarter"}},
    "layer": [
        {"mark": {"type": "line", "point": True},
         "encoding": {"y": {"field": "revenue_usd_bn", "type": "quantitative", "title": "Revenue ($B)"}}},
        {"mark": {"type": "line", "point": True, "strokeDash": [4, 2]},
         "encoding": {"y": {"field": "gross_margin_pct", "type": "quantitative",
                            "title": "Gross margin (%)", "scale": {"zero": False}}}},
    ],
    "resolve": {"scale": {"y": "independent"}},
}
CHART_CODE = ("import altair as alt\nimport pandas as pd\n"
              "segments = pd.DataFrame(SEGMENTS, columns=['segment', 'revenue_usd_bn'])\n"
              "alt.Chart(segments).mark_bar().encode(y=alt.Y('segment', sort='-x'), x='revenue_usd_bn')")


def add_deep_dive_charts(r):
    r.chart_tool("py", "Chart revenue by segment and the quarterly trend", CHART_CODE)
    r.chart("py", "chart-nvda-segments", "Revenue by segment, Q1 FY2027",
            "Data Center was $66.8B of $73.2B; every other segment together was under $6.5B.", "bar",
            SEGMENT_SPEC, [{"label": n, "value": v} for n, v in SEGMENTS],
            "Data Center is now more than nine-tenths of the business.")
    r.chart("py", "chart-nvda-trend", "Quarterly revenue and non-GAAP gross margin",
            "Revenue rose in every quarter of the last five; gross margin recovered to the mid-70s.", "line",
            TREND_SPEC, [{"label": q, "revenue_usd_bn": rv, "gross_margin_pct": m} for q, rv, m in QUARTERS],
            "non-GAAP gross margin was 75.1% (GAAP 74.9%)")


def build_deep_dive(Recorder):
    r = Recorder("earnings-deep-dive", SOURCES, chat_id=CHAT_ID)
    r.plan("NVIDIA Q1 FY2027 earnings deep dive", [
        "Confirm the latest reported quarter on the earnings calendar",
        "Retrieve reported results: revenue by segment, margins, EPS",
        "Review guidance and earnings-call commentary",
        "Assess supply constraints (CoWoS packaging, HBM memory)",
        "Check the market reaction and valuation",
    ])
    r.plan(statuses="INNNN")
    r.think("The user wants a full picture of NVIDIA's most recent quarter. NVIDIA's fiscal year ends in late "
            "January, so results published in late May would be Q1 FY2027 — but I should confirm the report date on "
            "the earnings calendar first, so the search window lines up with the release.")
    r.tool("cal", "get_earnings_calendar", dict(NVDA, start_date="2026-04-01", end_date="2026-09-30"),
           "NVDA earnings calendar", NV_CALENDAR)
    r.plan(statuses="CINNN")
    r.think("Confirmed: Q1 FY2027, the quarter ended April 26, 2026, was reported on May 27. Next I'll pull the "
            "press release and the 10-Q for revenue by segment, margins and the outlook, restricted to NVIDIA and "
            "the last week.")
    r.search("s1", "NVIDIA first quarter fiscal 2027 results revenue Data Center segment gross margin outlook",
             ["nv_pr", "nv_10q", "nv_reuters", "nv_bbg", "nv_preview"],
             args={"entity_ids": ["D8442A"], "start_date": "2026-05-20", "end_date": "2026-05-28"},
             filters=entity_filter("D8442A", start="2026-05-20", end="2026-05-28"))
    r.plan(statuses="CCINN")
    r.think("The press release gives $73.2B of revenue and a Q2 guide of $80.0B ± 2%, and the 10-Q splits Data "
            "Center into compute and networking. Reuters puts consensus near $77.5B, so the guide is a clear beat. "
            "I still need management's own words on supply — Rubin timing, China — which live in the call "
            "transcript, plus any read on margins and mix from the press.")
    r.search("s2", "NVIDIA Q1 FY2027 earnings call Rubin timing China H20 outlook Blackwell Ultra mix sovereign AI",
             ["nv_call", "nv_ft", "nv_hb"],
             args={"entity_ids": ["D8442A"], "start_date": "2026-05-27", "end_date": "2026-05-28"},
             filters=entity_filter("D8442A", start="2026-05-27", end="2026-05-28"))
    r.plan(statuses="CCCIN")
    r.think("The transcript confirms Rubin production shipments in the second half of calendar 2026 and that the "
            "outlook excludes China data-center compute. Supply obligations jumped to $58.6B. To judge whether "
            "supply can keep pace I should check third-party reporting on TSMC CoWoS capacity and HBM4 "
            "availability — including Japanese and Korean press.")
    r.search("s3", "TSMC CoWoS capacity expansion 2026 HBM4 supply sold out NVIDIA Rubin",
             ["nikkei_cowos", "hynix", "tsmc_apr"],
             args={"start_date": "2026-04-01", "end_date": "2026-05-28"},
             filters={"period": period("2026-04-01", "2026-05-28")})
    r.plan(statuses="CCCCI")
    r.think("Nikkei reports TSMC doubling CoWoS capacity by end-2026 with NVIDIA taking about 60%, and SK hynix "
            "says its 2026 HBM output is sold out. Last piece: the share-price reaction and valuation.")
    r.tool("tear", "get_market_tearsheet", dict(NVDA), "NVDA market tearsheet", NV_TEARSHEET)
    r.plan(statuses="CCCCC")
    r.think("I have what I need. Structure: headline numbers, a segment table, margins as a numbered list, "
            "guidance, supply, then market reaction. Every figure should tie to the filing, press release or call; "
            "valuation to the tearsheet and the date to the calendar.")
    add_deep_dive_charts(r)
    r.answer(DEEP_DIVE_ANSWER, message_id="ans-1", batches=3)
    r.structured(STRUCTURED_SCHEMA, STRUCTURED_CONTENT)
    r.complete([("base", (48210, 3906, 12288)), ("pro", (0, 0, 0))], checkpoint_id="ckpt-demo-nvda-q1fy27-0001")
    return r, {"title": "NVIDIA Q1 FY2027 earnings deep dive", "prompt": DEEP_DIVE_PROMPT, "chat_id": CHAT_ID,
               "research_effort": "standard", "checkpoint_id": "ckpt-demo-nvda-q1fy27-0001"}


# ------------------------------------------------------------------------------------ follow-up

AMD_CALENDAR = """**Advanced Micro Devices (AMD) — corporate calendar**

| Date | Event | Period |
|---|---|---|
| 2026-05-05 | Q1 2026 results (reported) | quarter ended 2026-03-28 |
| 2026-08-04 | Q2 2026 results (estimated) | quarter ending 2026-06-27 |"""

AMD_TEARSHEET = """**Advanced Micro Devices (AMD) · NASDAQ** — as of 2026-05-28 14:30 UTC

| Metric | Value |
|---|---|
| Last price | $231.60 (+1.4% on the day) |
| Market cap | $376B |
| P/E (forward, NTM) | 35.8× |
| EV / sales (NTM) | 8.1× |
| 52-week range | $112.40 – $267.08 |
| Analyst consensus | Buy (41 of 52) |"""

FOLLOW_UP_PROMPT = "How does that compare with AMD's data-center guidance?"

FOLLOW_UP_ANSWER = """## 📊 NVIDIA vs AMD: data-center outlook

Both companies are guiding higher, but on very different scales. ⟦src:nv_pr⟧NVIDIA guided Q2 FY27 revenue to $80.0 billion ± 2%⟦/⟧, while ⟦src:amd_pr⟧AMD guided its June quarter to about $11.2 billion ± $300 million⟦/⟧ — ⟦src:amd_reuters⟧above the $10.9 billion analysts expected⟦/⟧.

## Side by side

| Metric | NVIDIA (Q1 FY27) | AMD (Q1 2026) |
|---|---:|---:|
| Total revenue | $73.2B | $10.3B |
| Data-center revenue | $66.8B | $5.6B |
| Data-center growth (YoY) | +71% | +53% |
| Non-GAAP gross margin | 75.1% | 55.0% |
| Next-quarter revenue guide | $80.0B ± 2% | ≈ $11.2B ± $0.3B |
| Forward P/E | ≈ 28× | ≈ 36× |

## How the guidance differs

1. **Granularity.** NVIDIA gives one revenue number plus a margin range; AMD guides total revenue and describes data center in words — ⟦src:amd_call⟧management expects Data Center revenue to grow by a strong double-digit percentage sequentially⟦/⟧.
2. **Growth.** ⟦src:amd_pr⟧AMD's Data Center revenue hit a record $5.6 billion, up 53%⟦/⟧: slower than NVIDIA's 71%, from a base about one-twelfth the size.
3. **Profitability.** ⟦src:amd_10q⟧AMD's Data Center segment earned an operating margin of about 29%⟦/⟧, and ⟦src:amd_pr⟧its company-wide non-GAAP gross margin was 55.0%⟦/⟧ — roughly 20 points below NVIDIA's.
4. **Timing of the next leg.** ⟦src:amd_call⟧MI450 and the Helios rack are on track to launch in the third quarter, with the first gigawatt of the OpenAI deployment starting in the second half⟦/⟧; ⟦src:nv_call⟧NVIDIA's Rubin is slated for production shipments in the same window⟦/⟧.

## Bull and bear case for AMD

- **Bull:** ⟦src:amd_ft⟧at its November 2025 analyst day AMD targeted data-center growth above 60% a year, and above 80% for data-center AI⟦/⟧. ⟦src:nikkei_amd⟧MI450 will be built on TSMC's 2 nm process and ship from the second half of 2026⟦/⟧.
- **Bear:** ⟦src:amd_bbg⟧2026 GPU revenue hinges on a smooth Helios ramp in the fourth quarter; any slip pushes revenue into 2027⟦/⟧.
- **Share:** ⟦src:lesechos⟧Les Echos notes that NVIDIA still holds more than 80% of the AI-accelerator market, while AMD is aiming for a double-digit share by 2027⟦/⟧.

## Valuation and calendar

⟦tool:tear_amd⟧AMD trades around $232, a market value of roughly $376 billion and about 36 times forward earnings⟦/⟧ — a premium to NVIDIA's ~28× that already assumes the MI450 ramp lands on time. ⟦tool:cal_amd⟧AMD's next report is expected on August 4, 2026⟦/⟧, three weeks before NVIDIA's.

📌 **Bottom line:** NVIDIA's guide is roughly seven times AMD's total quarterly revenue, and its data-center business is still growing faster. AMD's case rests on a second-half 2026 inflection; until Helios ships in volume, NVIDIA's guidance carries more visibility.

_Offline demo: a recorded, synthetic session — figures are illustrative._"""


def build_follow_up(Recorder):
    r = Recorder("follow-up", SOURCES, chat_id=CHAT_ID)
    r.think_n = 6  # the conversation's earlier turn used think-1 … think-6
    r.plan("NVIDIA vs AMD: data-center guidance", [
        "Retrieve AMD's latest results and data-center guidance",
        "Check AMD's roadmap and customer commitments (MI450, Helios)",
        "Line up against NVIDIA's Q2 FY27 outlook",
        "Check valuation and upcoming reporting dates",
    ])
    r.plan(statuses="INNN")
    r.think("\"That\" refers to NVIDIA's Q2 FY27 guidance from the previous turn: $80.0B ± 2%. AMD reported its "
            "March quarter in early May, so I need its results, its Q2 revenue guide and whatever it said "
            "specifically about Data Center — AMD does not give a segment-level number, so the call transcript "
            "matters.")
    r.search("fs1", "AMD first quarter 2026 results Data Center segment revenue second quarter outlook",
             ["amd_pr", "amd_10q", "amd_reuters", "amd_call"],
             args={"entity_ids": ["6A4C1E"], "start_date": "2026-05-01", "end_date": "2026-05-28"},
             filters=entity_filter("6A4C1E", start="2026-05-01", end="2026-05-28"))
    r.plan(statuses="CINN")
    r.think("AMD guided Q2 to about $11.2B ± $300M against a $10.9B consensus, and said Data Center should grow "
            "strong double digits sequentially. The real swing factor is the MI450/Helios launch and the OpenAI "
            "commitment, so I'll search for roadmap coverage and the long-term targets from the analyst day.")
    r.search("fs2", "AMD MI450 Helios rack launch OpenAI gigawatt deployment data center AI targets market share",
             ["nikkei_amd", "amd_bbg", "lesechos", "amd_ft"],
             args={"entity_ids": ["6A4C1E"], "start_date": "2025-11-01", "end_date": "2026-05-28"},
             filters=entity_filter("6A4C1E", start="2025-11-01", end="2026-05-28"))
    r.plan(statuses="CCIN")
    r.think("For a like-for-like comparison I want NVIDIA's exact guidance wording and the Rubin timing again, "
            "so the citations point at NVIDIA's own documents rather than at my earlier answer.")
    r.search("fs3", "NVIDIA second quarter fiscal 2027 outlook revenue gross margin Rubin production shipments",
             ["nv_pr", "nv_call"],
             args={"entity_ids": ["D8442A"], "start_date": "2026-05-27", "end_date": "2026-05-28"},
             filters=entity_filter("D8442A", start="2026-05-27", end="2026-05-28"))
    r.plan(statuses="CCCI")
    r.think("Now valuation and the next report date for AMD, to close the comparison.")
    r.tool("tear_amd", "get_market_tearsheet", dict(AMD), "AMD market tearsheet", AMD_TEARSHEET)
    r.tool("cal_amd", "get_earnings_calendar", dict(AMD, start_date="2026-05-01", end_date="2026-09-30"),
           "AMD earnings calendar", AMD_CALENDAR)
    r.plan(statuses="CCCC")
    r.think("Structure: a one-paragraph answer up front, a side-by-side table, a numbered list on how the two "
            "guides differ, then bull and bear points for AMD and the valuation. Keep NVIDIA figures consistent "
            "with the previous turn.")
    r.answer(FOLLOW_UP_ANSWER, message_id="ans-2", batches=3)
    r.complete([("base", (61540, 3310, 40960)), ("pro", (0, 0, 0))], checkpoint_id="ckpt-demo-nvda-q1fy27-0002")
    return r, {"title": "Follow-up: NVIDIA vs AMD data-center guidance", "prompt": FOLLOW_UP_PROMPT,
               "chat_id": CHAT_ID, "research_effort": "standard", "follows": "earnings-deep-dive.sse",
               "checkpoint_id": "ckpt-demo-nvda-q1fy27-0002"}


# ------------------------------------------------------------------------------------ workflow

WORKFLOW_ANSWER = """## 📈 Earnings brief — NVIDIA (NVDA), Q1 FY2027

**Headline:** ⟦src:nv_pr⟧record revenue of $73.2 billion, up 66% year on year, with non-GAAP EPS of $1.75⟦/⟧.

**Key points**

- ⟦src:nv_10q⟧Data Center revenue was $66.8 billion, up 71%⟦/⟧ — about 91% of the total.
- ⟦src:nv_pr⟧Non-GAAP gross margin was 75.1%⟦/⟧, back in the mid-70s after last year's H20 charge.
- ⟦src:nv_pr⟧Q2 guidance: revenue of $80.0 billion ± 2%⟦/⟧, ⟦src:nv_reuters⟧above the $77.5 billion consensus⟦/⟧.
- ⟦src:nv_10q⟧Networking revenue rose 90% to $9.4 billion⟦/⟧, outpacing compute.
- ⟦src:nv_call⟧Rubin remains on track for production shipments in the second half of calendar 2026⟦/⟧.

| Segment | Revenue | YoY |
|---|---:|---:|
| Data Center | $66.8B | +71% |
| Gaming | $4.5B | +20% |
| All other | $1.9B | n/m |

**Reaction:** ⟦tool:tear⟧shares trade near $212, about 28× forward earnings⟦/⟧.

**Watch list**

1. Supply — ⟦src:nikkei_cowos⟧TSMC plans to double CoWoS capacity by the end of 2026⟦/⟧.
2. China — ⟦src:nv_call⟧guidance assumes no data-center compute revenue from China⟦/⟧.
3. ⟦tool:cal⟧Next report: August 26, 2026 (estimated)⟦/⟧.

**Takeaway:** a clean beat-and-raise. The debate has moved from demand to how fast supply — packaging and memory — can grow into the Rubin ramp.

_Offline demo: a recorded, synthetic workflow run — figures are illustrative._"""


def build_workflow(Recorder):
    r = Recorder("workflow-earnings-brief", SOURCES, request_id="req-demo-8e21c4b7",
                 execution_id="exec-demo-3b9f60d2-earnings-brief")
    r.plan("Earnings brief: NVIDIA Corp", [
        "Identify the most recent reporting event",
        "Collect results, guidance and management commentary",
        "Summarise into a one-page brief",
    ])
    r.plan(statuses="INN")
    r.think("Template input company_id D8442A resolves to NVIDIA Corp. The brief covers the most recent "
            "reporting event inside the last seven days, so I'll check the calendar first to pin down the date.")
    r.tool("cal", "get_earnings_calendar", dict(NVDA, start_date="2026-04-01", end_date="2026-09-30"),
           "NVDA earnings calendar", NV_CALENDAR)
    r.plan(statuses="CIN")
    r.search("s1", "NVIDIA Q1 FY2027 results guidance earnings call Rubin China",
             ["nv_pr", "nv_10q", "nv_reuters", "nv_call"],
             args={"entity_ids": ["D8442A"], "start_date": "2026-05-21", "end_date": "2026-05-28"},
             filters=entity_filter("D8442A", start="2026-05-21", end="2026-05-28"))
    r.think("Press release, 10-Q, call transcript and Reuters' consensus comparison cover results and guidance. "
            "The template's watch list needs a supply-side data point, so one more search on packaging capacity.")
    r.search("s2", "TSMC CoWoS capacity 2026 NVIDIA",
             ["nikkei_cowos", "tsmc_apr"],
             args={"start_date": "2026-05-01", "end_date": "2026-05-28"},
             filters={"period": period("2026-05-01", "2026-05-28")})
    r.think("Nikkei has TSMC doubling CoWoS capacity by the end of 2026. Adding the tearsheet for the market "
            "reaction.")
    r.tool("tear", "get_market_tearsheet", dict(NVDA), "NVDA market tearsheet", NV_TEARSHEET)
    r.plan(statuses="CCI")
    r.think("Template sections: headline, key points, segment snapshot, reaction, watch list and a one-line "
            "takeaway. Keep it under 300 words and cite every figure.")
    r.answer(WORKFLOW_ANSWER, message_id="ans-1", batches=2)
    r.plan(statuses="CCC")
    r.complete([("base", (21870, 1402, 0)), ("pro", (0, 0, 0))])
    return r, {"title": "Workflow: earnings brief (NVIDIA)", "template": "earnings-brief",
               "prompt": "Run the earnings-brief workflow for NVIDIA (company_id D8442A, last 7 days)",
               "input": {"company_id": "D8442A"}, "time_range": "last_7_days",
               "request_id": "req-demo-8e21c4b7", "execution_id": "exec-demo-3b9f60d2-earnings-brief"}
