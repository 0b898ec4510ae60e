"""BidStudio llm layer."""
