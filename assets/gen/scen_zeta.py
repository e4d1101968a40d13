"""Zeta Alpha chat demo scenarios (content only; see make_provider_recordings.py).

Answers are Markdown with evidence markers ⟦alias⟧.  While the answer streams, the content shows the
agent's raw links `[[N]](url "title")`; the final message rewrites them into anchors (numbered
`<sup>N</sup>` or short hashes `[a1b2c3d4]`) and carries the evidences.
"""


def chunk_url(tenant, doc, chunk):
    return ("/documents/chunk/list?tenant=%s&property_name=id&property_values=%s_%d"
            % (tenant, doc, chunk))


TENANT = "demo"

# alias -> (document_hit_url, title, text_extract with the key sentence in <b>…</b>)
DOCS = {
    "lost_middle": (
        chunk_url(TENANT, "f3a9c1d2e8b7", 4),
        "Lost in the Middle: How Language Models Use Long Contexts",
        "Lost in the Middle: How Language Models Use Long Contexts\nWe analyze multi-document question "
        "answering and key-value retrieval. <b>Performance is often highest when relevant information "
        "occurs at the beginning or end of the input context, and significantly degrades when models "
        "must access relevant information in the middle of long contexts.</b>",
    ),
    "longrag": (
        chunk_url(TENANT, "0b6d2e4f9a13", 1),
        "LongRAG: Enhancing Retrieval-Augmented Generation with Long-context LLMs",
        "LongRAG: Enhancing Retrieval-Augmented Generation with Long-context LLMs\nTraditional RAG "
        "retrieves short passages. <b>LongRAG processes the corpus into 4K-token retrieval units, "
        "reducing the number of units by an order of magnitude and markedly improving answer recall.</b>",
    ),
    "raptor": (
        chunk_url(TENANT, "7c41e0a5b2f6", 2),
        "RAPTOR: Recursive Abstractive Processing for Tree-Organized Retrieval",
        "RAPTOR: Recursive Abstractive Processing for Tree-Organized Retrieval\n<b>RAPTOR recursively "
        "embeds, clusters and summarizes chunks of text, building a tree with differing levels of "
        "summarization from the bottom up.</b> At query time it retrieves from this tree.",
    ),
    "graphrag": (
        chunk_url(TENANT, "9e2f7b3c6d40", 0),
        "From Local to Global: A Graph RAG Approach to Query-Focused Summarization",
        "From Local to Global: A Graph RAG Approach to Query-Focused Summarization\nVector RAG fails on "
        "global questions. <b>Graph RAG builds an entity knowledge graph and pregenerates community "
        "summaries, which are combined to answer questions about the whole corpus.</b>",
    ),
    "selfroute": (
        chunk_url(TENANT, "4d8a0c6e1f25", 3),
        "Retrieval Augmented Generation or Long-Context LLMs? A Comprehensive Study and Hybrid Approach",
        "Retrieval Augmented Generation or Long-Context LLMs? A Comprehensive Study and Hybrid Approach\n"
        "<b>Self-Route routes queries to RAG or long-context models based on model self-reflection, "
        "significantly reducing computation cost while maintaining comparable performance.</b>",
    ),
    "late_chunking": (
        chunk_url(TENANT, "b5e1d9f3a7c8", 0),
        "Late Chunking: Contextual Chunk Embeddings Using Long-Context Embedding Models",
        "Late Chunking: Contextual Chunk Embeddings Using Long-Context Embedding Models\n<b>Late chunking "
        "first applies the transformer to the entire text and applies chunking only afterwards, just "
        "before mean pooling,</b> so chunk embeddings capture the full contextual information.",
    ),
    "team_notes": (
        "custom://team-notes-2026-03",
        "Team notes: RAG evaluation on the 2025 annual reports",
        "Team notes: RAG evaluation on the 2025 annual reports\n<b>Section-level retrieval with a "
        "cross-encoder re-ranker beat 512-token chunks by 9 points of answer accuracy</b> on 120 "
        "questions over 14 annual reports.",
    ),
    # follow-up
    "nougat": (
        chunk_url(TENANT, "2a7f5c9e0d31", 0),
        "Nougat: Neural Optical Understanding for Academic Documents",
        "Nougat: Neural Optical Understanding for Academic Documents\n<b>Nougat converts images of "
        "scientific documents into a markup language, including mathematical expressions and "
        "tables.</b>",
    ),
    "tablerag": (
        chunk_url(TENANT, "6e0b3d8f2a94", 1),
        "TableRAG: Million-Token Table Understanding with Language Models",
        "TableRAG: Million-Token Table Understanding with Language Models\nFeeding whole tables does "
        "not scale. <b>TableRAG combines schema and cell retrieval to pinpoint the crucial information "
        "before it is given to the language model.</b>",
    ),
    "doclaynet": (
        chunk_url(TENANT, "c9d4a1e7f056", 2),
        "DocLayNet: A Large Human-Annotated Dataset for Document-Layout Analysis",
        "DocLayNet: A Large Human-Annotated Dataset for Document-Layout Analysis\n<b>DocLayNet provides "
        "80 863 manually annotated pages from diverse sources with 11 layout classes, including tables, "
        "formulas and captions.</b>",
    ),
    "pdf_notes": (
        "custom://pdf-pipeline-notes",
        "Team notes: PDF parsing pipeline",
        "Team notes: PDF parsing pipeline\n<b>Tables parsed to Markdown and indexed as their own "
        "chunks, with the caption and column headers repeated in each chunk,</b> fixed most table "
        "questions in our pilot.",
    ),
}

# the comparison question: the papers and notes a research tenant holds on sodium-ion storage
DOCS.update({
    "na_hard_carbon": (
        chunk_url(TENANT, "5a2c8e0f7b19", 2),
        "Hard Carbon Anodes for Sodium-Ion Batteries: Progress and Prospects",
        "Hard Carbon Anodes for Sodium-Ion Batteries: Progress and Prospects\n<b>Hard carbon anodes now "
        "deliver 300–350 mAh/g with first-cycle efficiencies above 90%, closing much of the gap to "
        "graphite in lithium-ion cells.</b>",
    ),
    "na_lca": (
        chunk_url(TENANT, "e81d3f6a0c42", 5),
        "Life-Cycle Assessment of Sodium-Ion and LFP Batteries for Stationary Storage",
        "Life-Cycle Assessment of Sodium-Ion and LFP Batteries for Stationary Storage\n<b>Per kWh "
        "delivered over the lifetime, sodium-ion cells show lower material criticality but similar "
        "greenhouse-gas emissions to LFP, because their cycle life is shorter.</b>",
    ),
    "na_prussian": (
        chunk_url(TENANT, "3b7f9d1e5c60", 1),
        "Prussian White Cathodes for Grid-Scale Sodium-Ion Storage",
        "Prussian White Cathodes for Grid-Scale Sodium-Ion Storage\n<b>Prussian white cathodes "
        "reach 6,000 cycles at 80% capacity retention in pouch cells, with low-cost iron and "
        "manganese precursors.</b>",
    ),
    "na_notes": (
        "custom://storage-procurement-notes",
        "Team notes: 2026 storage procurement criteria",
        "Team notes: 2026 storage procurement criteria\n<b>We require five years of field degradation "
        "data before a chemistry can bid for more than 10% of a project.</b>",
    ),
})

RESEARCH = {
    "file": "rag-long-documents.sse",
    "title": "RAG for long documents: what recent papers say",
    "prompt": "What do recent papers say about retrieval-augmented generation for long documents?",
    "session_id": "sess-demo-5e1b7c93",
    "message_id": "msg-demo-a41f0c2d",
    "anchors": "numbered",
    "tools": [
        ("search_documents", "Searching for “long context retrieval augmented generation”",
         "Found 24 documents"),
        ("search_documents", "Searching for “hierarchical retrieval long documents summarization”",
         "Found 17 documents"),
        ("read_custom_context", "Reading your custom context", "Read 1 note"),
    ],
    "answer": """## RAG for long documents: what recent papers say 📚

Long documents break naïve retrieval-augmented generation in two ways: fixed-size chunks lose their context, and very long prompts bury the evidence.

**1. Models under-use the middle of long contexts.** Accuracy is highest when the relevant passage sits at the start or the end of the prompt, and it drops for passages in the middle.⟦lost_middle⟧ Simply stuffing a 100k-token window is therefore not a reliable substitute for retrieval.⟦lost_middle⟧

**2. Bigger retrieval units help long-context readers.** LongRAG retrieves whole sections (about 4 000 tokens) instead of 100-word passages, so the corpus has far fewer units and recall improves.⟦longrag⟧

**3. Hierarchies and graphs answer global questions.** RAPTOR clusters chunks and summarises them recursively into a tree, so a query can match a detail or a summary;⟦raptor⟧ Graph RAG builds an entity graph with community summaries for “what are the main themes?” questions.⟦graphrag⟧

**4. Route between RAG and long context.** Self-Route lets the model decide per query: answer from retrieved chunks when it can, and fall back to the full context when it cannot, keeping most of the quality at a fraction of the cost.⟦selfroute⟧

**5. Chunk after embedding.** Late chunking embeds the whole document first and pools token vectors per chunk afterwards, so each chunk keeps its surrounding context.⟦late_chunking⟧

### In practice

Your team's own evaluation on the 2025 annual reports points the same way: section-level retrieval with a re-ranker beat 512-token chunks by 9 points.⟦team_notes⟧ A reasonable recipe:

- split by document structure (sections, the “Lagebericht” of a German Geschäftsbericht, tables) rather than by token count;⟦longrag⟧
- keep summaries for global questions;⟦raptor⟧
- put the best evidence at the start of the prompt, not in the middle.⟦lost_middle⟧

_Demo recording: the papers are real, but the figures, extracts and notes here are illustrative._""",
}

FOLLOW_UP = {
    "file": "scientific-pdfs-follow-up.sse",
    "title": "Follow-up: scientific PDFs with tables",
    "prompt": "Which of these approaches works best for scientific PDFs with tables?",
    "session_id": RESEARCH["session_id"],
    "message_id": "msg-demo-c7e2b950",
    "anchors": "hash",
    "tools": [
        ("search_documents", "Searching for “table question answering scientific PDF parsing”",
         "Found 19 documents"),
        ("read_custom_context", "Reading your custom context", "Read 1 note"),
    ],
    "answer": """## Scientific PDFs with tables 🧪

Tables are where long-document RAG fails most often: a PDF parser that flattens a table into a stream of numbers leaves nothing meaningful to retrieve.

**Parse first.** Layout-aware parsing matters more than the retrieval method. Nougat turns page images of papers into markup, including equations and tables,⟦nougat⟧ and layout datasets such as DocLayNet show how many distinct regions (tables, formulas, captions) a page holds.⟦doclaynet⟧

**Retrieve tables as tables.** TableRAG retrieves the relevant schema and cells before the model reads anything, instead of pasting whole tables into the prompt,⟦tablerag⟧ which scales to tables far larger than a context window.⟦tablerag⟧

**Check the parse, not just the answer.** When a table answer is wrong, look at the parsed chunk first: merged header cells and footnote markers are the usual culprits.⟦pdf_notes⟧

**Keep structure for everything else.** For the surrounding text, the hierarchical approach from the previous answer still applies: section-level units plus summaries, so a question about a method finds the right section and its results table.⟦raptor⟧

### Recommendation

1. Parse PDFs with a layout-aware model and keep tables as Markdown.⟦nougat⟧
2. Index each table as its own chunk, repeating the caption and column headers, as your pilot did.⟦pdf_notes⟧
3. Use table-aware retrieval for numeric questions; route the rest to section-level RAG.⟦tablerag⟧

Your own notes report that this alone fixed most table questions in the pilot — the cheapest win before trying anything more elaborate.⟦pdf_notes⟧ Formulas deserve the same care as tables: keep them as LaTeX (e.g. ∑ᵢ wᵢ·xᵢ) so they can be matched at all.⟦nougat⟧

_Demo recording: the papers are real, but the figures, extracts and notes here are illustrative._""",
}

COMPARISON = {
    "file": "sodium-ion-papers.sse",
    "title": "Sodium-ion vs LFP for grid storage: what the papers say",
    "prompt": "How close is grid-scale sodium-ion storage to displacing lithium iron phosphate?",
    "session_id": "sess-demo-9a2e64d1",
    "message_id": "msg-demo-4f8b1c07",
    "anchors": "numbered",
    "tools": [
        ("search_documents", "Searching for “sodium-ion grid storage cycle life cost”", "Found 21 documents"),
        ("search_documents", "Searching for “sodium-ion versus LFP life-cycle assessment”", "Found 9 documents"),
        ("read_custom_context", "Reading your custom context", "Read 1 note"),
    ],
    "answer": """## Sodium-ion vs LFP for grid storage: what the papers say 🔋

The research literature is more cautious than the press releases: sodium-ion chemistry has matured quickly, but the evidence for displacing lithium iron phosphate (LFP) in grid storage is still thin.

**Materials have caught up.** Hard carbon anodes now reach 300–350 mAh/g with first-cycle efficiencies above 90 %, which removes the old capacity penalty on the anode side.⟦na_hard_carbon⟧ On the cathode side, Prussian white materials made from iron and manganese reach about 6,000 cycles at 80 % retention in pouch cells.⟦na_prussian⟧

**Cycle life is the open question.** Those cycle counts come from lab and pilot cells; LFP cells in service routinely exceed them, and a life-cycle assessment finds that the shorter life cancels most of sodium-ion's climate advantage per kWh delivered.⟦na_lca⟧ The same study credits sodium-ion with lower material criticality, which matters for supply security rather than cost.⟦na_lca⟧

**Cheap precursors help, but only at scale.** The iron and manganese precursors are cheap,⟦na_prussian⟧ yet cell prices follow factory volume, and sodium-ion volumes are small. Until factories reach tens of gigawatt-hours, the materials advantage stays on paper rather than in tender prices.

### What it means for procurement

Your team's own criteria set the bar: five years of field degradation data before a chemistry bids for more than 10 % of a project.⟦na_notes⟧ No sodium-ion installation has that record yet, so for the next few years sodium-ion fits pilots and cold-climate sites, while LFP remains the default for bulk capacity.⟦na_lca⟧

_Demo recording: the papers are illustrative, as are the figures, extracts and notes here._""",
}

SCENARIOS = [RESEARCH, FOLLOW_UP, COMPARISON]
