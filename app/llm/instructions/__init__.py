"""Instruction streams: a model streams small set/append/done lines that edit a tree live.

Entry point: ``rounds.run_instruction_rounds`` (live application, repair and continuation rounds).
``stream`` parses the text as it arrives, ``fast`` and ``apply`` validate and apply each
instruction, ``locks`` says which paths may change, ``prompts`` what each round tells the model.

Imports: ``app.core``, ``app.llm.client`` and ``app.llm.json``.
"""
