"""评审模拟: read a drafted bid the way an evaluator scores it (Qt-free).

For each technical scoring item, every point its criteria name is matched to the bid's
text by code (:mod:`.matching`, terms from :mod:`.terms`) and given a status — answered,
thin or missing — with the sections and a quoted sentence as evidence; the criteria's
grading (tiers, per-item points, deductions; :mod:`.tiers`) turns the statuses into an
expected score. :func:`app.pipeline.evaluation.review.review_bid` is the entry point;
:mod:`.questions` asks a configured model closed questions about one point and one
passage and keeps an answer only when its quoted sentence is really in the passage;
:mod:`.clauses` tells which ★/▲ clauses the text addresses (for the 提交前检查);
:mod:`.fill` decides where 补写 writes and drafts one point; :mod:`.table` gives the
自评表 as rows of text for the spreadsheet and the Word table. :mod:`.outline_points` applies the
same matching to an outline's headings (the share of each item's points they answer) and
:mod:`.point_fill` answers the points code's planned headings miss, in the criteria's own words.

May import core, documents, llm and pipeline.headings; never Qt, ui or export.
"""
