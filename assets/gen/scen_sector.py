"""Scenario content: semiconductor-equipment sector comparison (ASML, Applied Materials, Lam Research,
Tokyo Electron), with a sub-agent, a failed tool, a skipped plan step and an LLM retry.
Synthetic: companies are real, figures, quotes, URLs and identifiers are illustrative."""
from make_recordings import bigdata, external, source_library

CHAT_ID = "demo-chat-91b3e07f-semicap-sector"
ENT = {"ASML": "0F5A2B", "AMAT": "3C7D90", "LRCX": "8E21F4", "8035.T": "B4D6A8"}

SOURCES = source_library(
    external("semi_ft", "Chip equipment spending heads for third straight record as AI lifts logic and memory",
             "2026-04-09T05:00:00Z",
             "Industry body SEMI expects global sales of semiconductor manufacturing equipment to reach about $145bn "
             "in 2026, a third consecutive record, driven by leading-edge logic, high-bandwidth memory and advanced "
             "packaging.", 0.86, 0.45, "Financial Times",
             "https://www.ft.com/content/5d0a7c3e-2f41-4b8a-9c6e-71e0d2b4a9f3"),
    bigdata("asml_pr", "ASML reports €8.0 billion total net sales and €2.3 billion net income in Q1 2026",
            "ASML Press Release", "2026-04-15T05:00:00Z",
            url="https://www.asml.com/en/news/press-releases/2026/q1-2026-financial-results",
            chunks=[
                (1, "Q1 total net sales of €8.0 billion, gross margin of 53.2%, net income of €2.3 billion. "
                    "Quarterly net bookings of €7.1 billion, of which €4.9 billion is EUV.", 0.95, 0.50),
                (3, "We continue to expect 2026 total net sales between €34 billion and €36 billion.", 0.90, 0.40),
            ]),
    external("lesechos", "ASML : les commandes de machines EUV rebondissent grâce à la mémoire pour l'IA",
             "2026-04-15T09:40:00Z",
             "Les fabricants de mémoire, SK hynix et Samsung en tête, ont passé davantage de commandes de machines EUV "
             "pour la HBM qu'à aucun moment depuis 2022, selon le groupe néerlandais.", 0.81, 0.35, "Les Echos",
             "https://www.lesechos.fr/tech-medias/hightech/asml-les-commandes-de-machines-euv-rebondissent-2214471"),
    bigdata("nikkei_tel", "東京エレクトロン、今期売上高2.9兆円で過去最高へ　AI向け需要けん引", "Nikkei",
            "2026-05-12T06:30:00Z", url="https://www.nikkei.com/article/DGXZQOUC1236K0S6A510C2000000/", rank=2,
            chunks=[
                (1, "東京エレクトロンは2027年3月期の連結売上高が前期比14%増の2兆9000億円になる見通しだと発表した。"
                    "AI向け半導体の需要が追い風となる。", 0.90, 0.55),
                (3, "26年3月期の中国向け売上高比率は36%だった。", 0.78, -0.05),
            ]),
    bigdata("amat_pr", "Applied Materials Announces Second Quarter 2026 Results", "Applied Materials Press Release",
            "2026-05-14T20:05:00Z",
            url="https://ir.appliedmaterials.com/news-releases/news-release-details/applied-materials-announces-second-quarter-2026-results",
            chunks=[
                (1, "Revenue of $7.60 billion, up 7 percent year over year. Non-GAAP gross margin of 48.9 percent, "
                    "the highest in more than 25 years.", 0.94, 0.55),
                (4, "Customers in China accounted for 29 percent of revenue in the quarter.", 0.74, -0.05),
            ]),
    external("reuters_amat", "Applied Materials forecasts third-quarter revenue above estimates", "2026-05-14T20:40:00Z",
             "Applied Materials forecast third-quarter revenue of $7.9 billion, plus or minus $500 million, above "
             "estimates, citing demand for gate-all-around transistors and advanced packaging. The company has said "
             "export restrictions will reduce fiscal 2026 revenue by about $600 million.", 0.87, 0.30, "Reuters",
             "https://www.reuters.com/technology/applied-materials-forecasts-third-quarter-revenue-above-estimates-2026-05-14/"),
    bigdata("lam_10q", "Lam Research Corp — Form 10-Q for the quarterly period ended March 29, 2026", "SEC EDGAR",
            "2026-04-24T20:15:00Z",
            url="https://www.sec.gov/Archives/edgar/data/707549/000070754926000021/lrcx-20260329.htm",
            chunks=[
                (6, "Revenue for the March 2026 quarter was $5.6 billion, an increase of 18% compared with the March "
                    "2025 quarter. Gross margin was 50.1%.", 0.92, 0.50),
                (11, "Revenue from customers in China represented 30% of total revenue, compared with 34% in the "
                     "March 2025 quarter.", 0.85, -0.05),
            ]),
    bigdata("lam_call", "Lam Research Corp (LRCX) Q3 FY2026 Earnings Call Transcript", "Bigdata.com Transcripts",
            "2026-04-22T22:00:00Z",
            chunks=[
                (9, "CEO: We expect NAND upgrade spending and HBM-related etch and deposition to be the main drivers "
                    "of our growth in the second half of the calendar year.", 0.89, 0.45),
            ]),
    external("hb_export", "Exportkontrollen: Europas Chipausrüster verlieren an China-Geschäft",
             "2026-05-04T04:30:00Z",
             "Der Anteil Chinas am Systemumsatz von ASML ist von knapp der Hälfte im Jahr 2024 auf rund ein Viertel "
             "gesunken, seit die Niederlande und die USA die Lizenzvergabe verschärft haben.", 0.84, -0.25,
             "Handelsblatt",
             "https://www.handelsblatt.com/unternehmen/industrie/exportkontrollen-europas-chipausruester-verlieren-an-china-geschaeft/100211908.html"),
    bigdata("bbg_val", "Chip-Equipment Stocks Trade at Widest Premium in a Decade", "Bloomberg", "2026-05-20T11:00:00Z",
            url="https://www.bloomberg.com/news/articles/2026-05-20/chip-equipment-stocks-trade-at-widest-premium-in-a-decade",
            rank=2,
            chunks=[
                (2, "The group trades at about 26 times forward earnings, against a ten-year average of roughly 18.",
                 0.88, 0.10),
                (5, "Applied Materials trades at about 22 times, Lam Research at 27 times and Tokyo Electron at "
                    "25 times estimated earnings.", 0.86, 0.05),
            ]),
    # returned by searches but not cited
    bigdata("kla_pr", "KLA Corporation Reports Fiscal 2026 Third Quarter Results", "KLA Press Release",
            "2026-04-29T20:05:00Z", url="https://ir.kla.com/news-events/press-releases/detail/482", rank=3,
            chunks=[(1, "Total revenues were $3.3 billion, above the midpoint of guidance.", 0.52, 0.40)]),
    external("naura", "China's Naura posts record first-quarter revenue as local fabs buy domestic tools",
             "2026-04-28T10:00:00Z",
             "Naura Technology said first-quarter revenue rose 31%, as Chinese chipmakers shifted orders to domestic "
             "suppliers.", 0.61, 0.30, "South China Morning Post",
             "https://www.scmp.com/tech/big-tech/article/3309921/chinas-naura-posts-record-first-quarter-revenue"),
)

ASML_TEARSHEET = """**ASML Holding NV (ASML) · Euronext Amsterdam** — as of 2026-05-28 14:30 UTC

| Metric | Value |
|---|---|
| Last price | €802.40 (−0.6% on the day) |
| Market cap | €313B |
| P/E (forward, NTM) | 33.2× |
| Dividend yield | 0.9% |
| 52-week range | €578.50 – €868.90 |"""

CALENDAR = """**Upcoming results — semiconductor equipment**

| Date | Company | Event |
|---|---|---|
| 2026-07-15 | ASML | Q2 2026 results |
| 2026-07-29 | Lam Research | Q4 FY2026 results (estimated) |
| 2026-08-06 | Tokyo Electron | Q1 FY3/2027 results (estimated) |
| 2026-08-13 | Applied Materials | Q3 FY2026 results (estimated) |"""

PROMPT = ("Compare the big semiconductor-equipment makers — ASML, Applied Materials, Lam Research and "
          "Tokyo Electron — on growth, China exposure and valuation.")

ANSWER = """## 🏭 Semiconductor equipment: Europe, the US and Japan compared

AI demand for leading-edge logic and high-bandwidth memory is lifting all four toolmakers, but unevenly. ⟦src:semi_ft⟧SEMI expects global equipment sales of about $145 billion in 2026, a third consecutive record⟦/⟧. The differences come down to technology exposure, China and valuation.

## Latest results at a glance

| Company | Latest period | Revenue | YoY | Gross margin | China share |
|---|---|---:|---:|---:|---:|
| ASML | Q1 2026 | €8.0B | +3% | 53.2% | ~25% |
| Applied Materials | FQ2 2026 | $7.6B | +7% | 48.9% | 29% |
| Lam Research | Mar-Q 2026 | $5.6B | +18% | 50.1% | 30% |
| Tokyo Electron | FY3/2026 | ¥2.55T | +5% | 47.1% | 36% |

## Company by company

- **ASML:** ⟦src:asml_pr⟧Q1 net bookings were €7.1 billion, of which €4.9 billion was EUV⟦/⟧, and ⟦src:lesechos⟧memory makers — SK hynix and Samsung in particular — ordered more EUV tools for HBM than at any time since 2022⟦/⟧. ⟦src:asml_pr⟧Management still expects 2026 sales of €34–36 billion⟦/⟧.
- **Applied Materials:** ⟦src:amat_pr⟧revenue rose 7% to $7.6 billion with a non-GAAP gross margin of 48.9%, the highest in more than 25 years⟦/⟧; ⟦src:reuters_amat;action_audits_id⟧its fiscal Q3 guide of $7.9 billion ± $500 million topped estimates on gate-all-around and advanced-packaging demand⟦/⟧.
- **Lam Research:** ⟦src:lam_10q⟧March-quarter revenue rose 18% to $5.6 billion at a 50.1% gross margin⟦/⟧, and ⟦src:lam_call⟧management expects NAND upgrades and HBM-related etch to drive the second half⟦/⟧.
- **Tokyo Electron (東京エレクトロン):** ⟦src:nikkei_tel⟧the company forecasts record FY3/2027 sales of ¥2.9 trillion, up 14%, on AI-related demand⟦/⟧.

## China exposure and export controls

Our sector-analyst sub-agent reviewed China exposure across the four:

1. ⟦src:hb_export⟧China's share of ASML system sales has fallen from almost half in 2024 to about a quarter⟦/⟧ as Dutch and US licensing tightened.
2. ⟦src:lam_10q⟧China was 30% of Lam's revenue in the March quarter, down from 34% a year earlier⟦/⟧.
3. ⟦src:reuters_amat⟧Applied expects export restrictions to cut fiscal 2026 revenue by about $600 million⟦/⟧.
4. ⟦src:nikkei_tel⟧Tokyo Electron remains the most exposed, with 36% of sales from China⟦/⟧.

China-domestic toolmakers such as Naura and AMEC are left out: coverage of their results is too thin for a like-for-like comparison.

## Valuation

⟦tool:tear_asml⟧ASML trades at about 33 times forward earnings⟦/⟧. Live tearsheets for the other three timed out, so their multiples come from consensus coverage: ⟦src:bbg_val⟧the group trades at about 26 times forward earnings, against a ten-year average of roughly 18⟦/⟧. Within it, ⟦src:bbg_val⟧Applied trades at about 22 times, Lam at 27 times and Tokyo Electron at 25 times estimated earnings⟦/⟧.

| Company | Fwd P/E | Take |
|---|---:|---|
| ASML | ≈ 33× | EUV monopoly, priced as such |
| Applied Materials | ≈ 22× | Cheapest, broadest portfolio |
| Lam Research | ≈ 27× | Most leveraged to memory |
| Tokyo Electron | ≈ 25× | Highest China risk |

## 📌 Bottom line

- **Growth:** Lam, riding the memory upcycle.
- **Quality:** ASML — though the premium already prices much of it.
- **Value:** Applied Materials, despite the China drag.
- **Next catalysts:** ⟦tool:cal;action_audits_id⟧ASML reports Q2 on July 15, 2026, and Lam on July 29⟦/⟧.

_Offline demo: a recorded, synthetic session — figures are illustrative._"""


# --------------------------------------------------------------------------- charts and structured output

PEERS = [
    # company, ticker, period, revenue, currency, growth %, gross margin %, China share %, forward P/E
    ("ASML", "ASML", "Q1 2026", 8.0, "EUR bn", 3, 53.2, 25, 33),
    ("Applied Materials", "AMAT", "FQ2 2026", 7.6, "USD bn", 7, 48.9, 29, 22),
    ("Lam Research", "LRCX", "Mar-Q 2026", 5.6, "USD bn", 18, 50.1, 30, 27),
    ("Tokyo Electron", "8035.T", "FY3/2026", 2550.0, "JPY bn", 5, 47.1, 36, 25),
]
METRICS = ["Revenue growth YoY", "Gross margin", "China share"]
PEER_SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "title": "Growth, margin and China exposure",
    "data": {"values": [{"company": c, METRICS[0]: g, METRICS[1]: m, METRICS[2]: ch}
                        for c, _, _, _, _, g, m, ch, _ in PEERS]},
    "transform": [{"fold": METRICS, "as": ["metric", "value"]}],
    "mark": "bar",
    "encoding": {
        "x": {"field": "company", "type": "nominal", "sort": None, "title": "Company"},
        "xOffset": {"field": "metric", "sort": METRICS},
        "y": {"field": "value", "type": "quantitative", "title": "Percent (%)"},
        "color": {"field": "metric", "type": "nominal", "sort": METRICS, "title": "Metric"},
    },
}
PE_SPEC = {
    "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
    "title": "Forward P/E against the ten-year average",
    "data": {"values": [{"ticker": t, "forward_pe": pe} for _, t, _, _, _, _, _, _, pe in PEERS]},
    "layer": [
        {"mark": "bar",
         "encoding": {"x": {"field": "ticker", "type": "nominal", "sort": "-y", "title": "Ticker"},
                      "y": {"field": "forward_pe", "type": "quantitative", "title": "Forward P/E (x)"}}},
        {"data": {"values": [{"average": 18}]}, "mark": {"type": "rule", "strokeDash": [4, 4]},
         "encoding": {"y": {"field": "average", "type": "quantitative"}}},
    ],
}
PEER_CODE = ("import altair as alt\nimport pandas as pd\n"
             "peers = pd.DataFrame(PEERS)\n"
             "alt.Chart(peers).transform_fold(METRICS, as_=['metric', 'value']).mark_bar()"
             ".encode(x='company:N', xOffset='metric:N', y='value:Q', color='metric:N')")
PEER_SCHEMA = {
    "type": "array",
    "items": {"type": "object", "properties": {
        "company": {"type": "string"}, "ticker": {"type": "string"}, "latest_period": {"type": "string"},
        "revenue": {"type": "number"}, "revenue_unit": {"type": "string"},
        "revenue_growth_yoy_pct": {"type": "number"}, "gross_margin_pct": {"type": "number"},
        "china_share_pct": {"type": "number"}, "forward_pe": {"type": "number"}},
        "required": ["company", "ticker"]},
}
PEER_CONTENT = [
    {"company": c, "ticker": t, "latest_period": p, "revenue": rv, "revenue_unit": u,
     "revenue_growth_yoy_pct": g, "gross_margin_pct": m, "china_share_pct": ch, "forward_pe": pe}
    for c, t, p, rv, u, g, m, ch, pe in PEERS
]


def add_charts(r):
    r.chart_tool("py", "Chart the peer comparison and valuation", PEER_CODE)
    r.chart("py", "chart-semicap-peers", "Growth, margin and China exposure",
            "Latest reported period for each company; Lam grew fastest, Tokyo Electron is the most exposed to China.",
            "grouped_bar", PEER_SPEC,
            [{"label": c, METRICS[0]: g, METRICS[1]: m, METRICS[2]: ch} for c, _, _, _, _, g, m, ch, _ in PEERS],
            "The differences come down to technology exposure, China and valuation.")
    r.chart("py", "chart-semicap-pe", "Forward P/E against the ten-year average",
            "Every name trades above the group's ten-year average of about 18 times.", "bar", PE_SPEC,
            [{"label": t, "value": pe} for _, t, _, _, _, _, _, _, pe in PEERS],
            "the group trades at about 26 times forward earnings, against a ten-year average of roughly 18")


def build(Recorder):
    r = Recorder("sector-comparison", SOURCES, chat_id=CHAT_ID)
    r.plan("Semiconductor equipment: growth, China exposure and valuation", [
        "Collect latest results and outlook for ASML and Tokyo Electron",
        "Collect latest results and outlook for Applied Materials and Lam Research",
        "Pull market tearsheets for valuation multiples",
        "Assess China exposure and export-control risk (sector_analyst sub-agent)",
        "Add China-domestic toolmakers (Naura, AMEC) for context",
        "Rebuild the valuation comparison from consensus coverage",
    ])
    r.plan(statuses="INNNNN")
    r.think("Four companies in three currencies and three fiscal calendars: ASML reports calendar quarters in "
            "euros, Applied and Lam have fiscal years ending in October and June, Tokyo Electron's year ends in "
            "March and reports in yen. I'll gather the non-US pair first, then the US pair, and keep each "
            "company's own reporting period in the comparison table instead of forcing them into one quarter.")
    r.search("s1", "ASML Q1 2026 results bookings EUV 2026 outlook; Tokyo Electron full-year results forecast",
             ["asml_pr", "lesechos", "nikkei_tel", "semi_ft"],
             args={"entity_ids": [ENT["ASML"], ENT["8035.T"]], "start_date": "2026-04-01", "end_date": "2026-05-28"},
             filters={"entities": {"any_of": [{"id": ENT["ASML"]}, {"id": ENT["8035.T"]}]},
                      "period": {"start": "2026-04-01T00:00:00Z", "end": "2026-05-28T23:59:59Z"}})
    r.plan(statuses="CINNNN")
    r.think("ASML: €8.0B of sales, €7.1B of bookings with €4.9B EUV, 2026 guide of €34–36B. Tokyo Electron "
            "guides FY3/2027 sales to ¥2.9T, up 14%. SEMI's $145B 2026 forecast gives the market backdrop. "
            "Now Applied Materials and Lam Research.")
    r.search("s2", "Applied Materials fiscal second quarter 2026 results guidance; Lam Research March quarter 2026 "
             "results China revenue share",
             ["amat_pr", "reuters_amat", "lam_10q", "lam_call", "kla_pr"],
             args={"entity_ids": [ENT["AMAT"], ENT["LRCX"]], "start_date": "2026-04-15", "end_date": "2026-05-28"},
             filters={"entities": {"any_of": [{"id": ENT["AMAT"]}, {"id": ENT["LRCX"]}]},
                      "period": {"start": "2026-04-15T00:00:00Z", "end": "2026-05-28T23:59:59Z"}})
    r.plan(statuses="CCINNN")
    r.think("Results are in for all four. For valuation I'll pull tearsheets, one company at a time.")
    r.tool("tear_asml", "get_market_tearsheet", {"entity_id": ENT["ASML"], "ticker": "ASML"},
           "ASML market tearsheet", ASML_TEARSHEET)
    r.failed_tool("get_market_tearsheet", {"entity_id": ENT["AMAT"], "ticker": "AMAT"},
                  "Upstream tearsheet service timed out after 30s")
    r.plan(statuses="CCFNNN")
    r.think("The tearsheet service is timing out. Rather than hammer it for the remaining three tickers, I'll mark "
            "that step failed and rebuild the multiples from recent consensus coverage later. Meanwhile China "
            "exposure is a self-contained question — I'll hand it to the sector analyst sub-agent.")
    r.plan(statuses="CCFINN")
    r.raw_audit({"audit_type": "SubAgentStartedAuditV1", "tool_id": r.tool_id("sub"),
                 "title": "Sub-agent started: sector_analyst", "agent_role": "sector_analyst",
                 "task": "Quantify China revenue exposure and export-control impact for ASML, AMAT, LRCX and "
                         "Tokyo Electron; flag whether China-domestic toolmakers can be compared."})
    r.role = "sector_analyst"
    r.think("Task: China exposure for four toolmakers. The Lam 10-Q and Tokyo Electron's results already carry "
            "China percentages; I still need ASML's trend and any quantified export-control impact for Applied. "
            "One targeted search covering export licensing should do it.")
    r.search("sub_s", "semiconductor equipment China revenue share export controls licensing ASML Applied Materials "
             "2026 impact Naura AMEC",
             ["hb_export", "reuters_amat", "naura"],
             args={"start_date": "2026-01-01", "end_date": "2026-05-28"},
             filters={"period": {"start": "2026-01-01T00:00:00Z", "end": "2026-05-28T23:59:59Z"}})
    r.think("ASML's China share has halved to about a quarter since 2024; Applied quantifies about $600M of "
            "fiscal 2026 impact; Lam is at 30% and Tokyo Electron at 36%. Naura shows up, but only one "
            "headline and no comparable margins — recommend leaving domestic players out.")
    r.role = "assistant"
    r.raw_audit({"audit_type": "SubAgentCompletedAuditV1", "tool_id": r.tool_id("sub"),
                 "title": "Sub-agent completed: sector_analyst", "agent_role": "sector_analyst",
                 "summary": "China share of revenue: Tokyo Electron 36%, Lam 30%, Applied 29%, ASML about 25% (down "
                            "from almost half in 2024). Applied: about $600M FY2026 export-control impact. "
                            "China-domestic toolmakers: insufficient comparable data.",
                 "tool_calls": 1})
    r.plan(statuses="CCFCSN")
    r.retry("Retrying after upstream rate limit (attempt 2/3)")
    r.think("Sub-agent results are consistent with the filings. Skipping the domestic-China step as it advised. "
            "For the failed tearsheets, search for recent consensus valuation coverage of the group.",
            first_delay=(900, 1400))
    r.plan(statuses="CCFCSI")
    r.search("s3", "semiconductor equipment stocks valuation forward P/E premium Applied Materials Lam Research "
             "Tokyo Electron",
             ["bbg_val"],
             args={"start_date": "2026-05-01", "end_date": "2026-05-28"},
             filters={"period": {"start": "2026-05-01T00:00:00Z", "end": "2026-05-28T23:59:59Z"}})
    r.tool("cal", "get_earnings_calendar",
           {"entity_ids": list(ENT.values()), "tickers": list(ENT), "start_date": "2026-06-01",
            "end_date": "2026-08-31"},
           "Semiconductor equipment earnings calendar", CALENDAR)
    r.plan(statuses="CCFCSC")
    r.think("Valuation gap covered: Bloomberg gives 22×, 27× and 25× for Applied, Lam and Tokyo Electron, and "
            "the ASML tearsheet gives 33×. Writing the comparison — results table, company notes, China list, "
            "valuation table — and noting the tearsheet failure and the skipped step so the reader knows.")
    add_charts(r)
    r.answer(ANSWER, message_id="ans-1", batches=4)
    r.structured(PEER_SCHEMA, PEER_CONTENT)
    r.complete([("base", (83115, 5204, 16384)), ("pro", (0, 0, 0))], checkpoint_id="ckpt-demo-semicap-0001")
    return r, {"title": "Semiconductor equipment sector comparison", "prompt": PROMPT, "chat_id": CHAT_ID,
               "research_effort": "standard", "checkpoint_id": "ckpt-demo-semicap-0001"}
